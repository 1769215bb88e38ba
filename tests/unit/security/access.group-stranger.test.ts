/** A stranger addressing the bot in a group is pointed to a DM at most once per reminder period. */

import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../../src/channels/channel.js';
import { channelsSchema } from '../../../src/config/channels-schema.js';
import { AccessControl, PAIRING_REMIND_MS } from '../../../src/security/access.js';
import { AccessStore } from '../../../src/security/access-store.js';

const config = channelsSchema.parse({ telegram: { owners: ['1'] }, discord: { owners: ['D1'] } });

const inGroup = (over: Partial<InboundMessage> = {}): InboundMessage => ({
  channel: 'telegram',
  platformMessageId: `p${Math.random()}`,
  conversationKey: '-42',
  sender: { id: '9', name: 'Stranger' },
  chatType: 'group',
  addressed: true,
  text: 'hey bot',
  ...over,
});

describe('group replies to strangers', () => {
  let db: Database.Database;
  let now: number;
  let access: AccessControl;

  beforeEach(() => {
    db = new Database(':memory:');
    const store = new AccessStore(db);
    store.init();
    now = 1_000_000;
    access = new AccessControl({ store, config, now: () => now });
  });

  afterEach(() => db.close());

  const reply = (m: InboundMessage) => {
    const d = access.check(m);
    expect(d).toMatchObject({ allowed: false, reason: 'not-allowed' });
    return (d as { reply?: string }).reply;
  };

  it('answers once, then stays quiet until the reminder period has passed', () => {
    expect(reply(inGroup())).toContain('Message me directly');
    for (let i = 0; i < 20; i++) {
      now += 1_000;
      expect(reply(inGroup())).toBeUndefined();
    }
    // Another group does not reset the throttle: it is per sender.
    expect(reply(inGroup({ conversationKey: '-43' }))).toBeUndefined();
    now += PAIRING_REMIND_MS;
    expect(reply(inGroup())).toContain('Message me directly');
  });

  it('throttles each sender on each channel on its own', () => {
    expect(reply(inGroup())).toBeDefined();
    expect(reply(inGroup({ sender: { id: '10' } }))).toBeDefined();
    expect(reply(inGroup({ sender: { id: '+9' } }))).toBeUndefined();
    expect(reply(inGroup({ channel: 'discord', conversationKey: 'G7' }))).toBeDefined();
  });
});
