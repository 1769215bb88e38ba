import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../../src/channels/channel.js';
import { channelsSchema } from '../../../src/config/channels-schema.js';
import {
  AccessControl,
  approvePairing,
  listPairing,
  PAIRING_ALPHABET,
  PAIRING_CODES_PER_SENDER,
  PAIRING_CODES_WINDOW_MS,
  PAIRING_TTL_MS,
} from '../../../src/security/access.js';
import { AccessStore, MAX_PENDING_PER_CHANNEL } from '../../../src/security/access-store.js';

const config = channelsSchema.parse({
  telegram: { owners: ['1'], allow: ['2'] },
  slack: { owners: ['U1'], pairing: false },
  discord: { owners: ['D1'], groups: { allow: ['G1'] } },
  whatsapp: { owners: ['49111'], groups: { enabled: false } },
});

const msg = (over: Partial<InboundMessage> = {}): InboundMessage => ({
  channel: 'telegram',
  platformMessageId: `p${Math.random()}`,
  conversationKey: '9',
  sender: { id: '9', name: 'Stranger' },
  chatType: 'direct',
  text: 'hello',
  ...over,
});

const codeFrom = (reply: string | undefined) => /approve \w+ ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(reply ?? '')?.[1];

describe('access control', () => {
  let db: Database.Database;
  let store: AccessStore;
  let now: number;
  let access: AccessControl;

  beforeEach(() => {
    db = new Database(':memory:');
    store = new AccessStore(db);
    store.init();
    store.init(); // idempotent: CREATE TABLE IF NOT EXISTS
    now = 1_000_000;
    access = new AccessControl({ store, config, now: () => now });
  });

  afterEach(() => db.close());

  it('admits owners and allowlisted senders, and knows who is an owner', () => {
    expect(access.check(msg({ sender: { id: '1' }, text: '/stop' }))).toEqual({ allowed: true, owner: true });
    expect(access.check(msg({ sender: { id: '2' }, text: 'fix the bug' }))).toEqual({ allowed: true, owner: false });
    // Whether a text is a command is the intake's parser's question, not the door's.
    expect(access.check(msg({ sender: { id: '2' }, text: 'stop!!' }))).toEqual({ allowed: true, owner: false });
    expect(access.isOwner('telegram', '1')).toBe(true);
    expect(access.isOwner('telegram', '2')).toBe(false);
    expect(access.isOwner('whatsapp', '+49111')).toBe(true);
    expect(access.isOwner('discord', '1')).toBe(false);
    expect(access.isOwner('web', 'owner')).toBe(true);
  });

  it('admits() gives the same decision as check(), without making a pairing code or a group notice', () => {
    const cases = [
      msg({ sender: { id: '1' } }),
      msg({ sender: { id: '2' } }),
      msg(),
      msg({ chatType: 'group', conversationKey: '-100:5', addressed: true }),
      msg({ sender: { id: '1' }, chatType: 'group', conversationKey: '-100:5', addressed: false }),
      msg({ channel: 'discord', sender: { id: 'D1' }, chatType: 'group', conversationKey: 'G2', addressed: true }),
    ];
    const quiet = cases.map((m) => access.admits(m));
    expect(listPairing(store, undefined, now)).toEqual([]);
    expect(quiet).toEqual([true, true, false, false, false, false]);
    expect(cases.map((m) => access.check(m).allowed)).toEqual(quiet);
    // check() is the door with its side effects: the stranger got a code, the group stranger a pointer.
    expect(listPairing(store, 'telegram', now)).toHaveLength(1);
    expect(access.check(cases[3]!)).toEqual({ allowed: false, reason: 'not-allowed' });
  });

  it('refuses a stranger with a pairing code; approval admits them; the code works once', () => {
    const first = access.check(msg());
    expect(first).toMatchObject({ allowed: false, reason: 'pairing-pending' });
    const code = codeFrom((first as { reply?: string }).reply)!;
    expect(code).toMatch(new RegExp(`^[${PAIRING_ALPHABET}]{4}-[${PAIRING_ALPHABET}]{4}$`));
    // The same sender keeps the same code, and is not reminded on every message.
    now += 60_000;
    expect(access.check(msg())).toEqual({ allowed: false, reason: 'pairing-pending' });
    now += 10 * 60_000;
    expect(codeFrom((access.check(msg()) as { reply?: string }).reply)).toBe(code);

    expect(listPairing(store, 'telegram', now)).toMatchObject([
      { senderId: '9', senderName: 'Stranger', code: code.replace('-', '') },
    ]);
    expect(approvePairing(store, 'discord', code, now)).toEqual({ ok: false, reason: 'not-found' });
    expect(approvePairing(store, 'telegram', code.toLowerCase(), now)).toMatchObject({
      ok: true,
      senderId: '9',
      conversationKey: '9',
    });
    expect(access.check(msg())).toEqual({ allowed: true, owner: false });
    expect(approvePairing(store, 'telegram', code, now)).toEqual({ ok: false, reason: 'not-found' });
    expect(listPairing(store, 'telegram', now)).toEqual([]);
    expect(store.listApproved('telegram').map((a) => a.senderId)).toEqual(['9']);
  });

  it('expires codes: an expired code admits nobody, and the sender gets a fresh one', () => {
    const code = codeFrom((access.check(msg()) as { reply?: string }).reply)!;
    const other = codeFrom((access.check(msg({ sender: { id: '77' } })) as { reply?: string }).reply)!;
    now += PAIRING_TTL_MS + 1;
    expect(listPairing(store, undefined, now)).toEqual([]);
    expect(approvePairing(store, 'telegram', code, now)).toMatchObject({ ok: false });
    expect(access.check(msg())).toMatchObject({ allowed: false, reason: 'pairing-pending' });
    const renewed = codeFrom((access.check(msg({ sender: { id: '77' } })) as { reply?: string }).reply);
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(other);
    expect(approvePairing(store, 'telegram', other, now)).toMatchObject({ ok: false });
    expect(approvePairing(store, 'telegram', renewed!, now)).toMatchObject({ ok: true, senderId: '77' });
  });

  it('refuses approval of a code that expired while still stored', () => {
    const code = codeFrom((access.check(msg()) as { reply?: string }).reply)!;
    expect(approvePairing(store, 'telegram', code, now + PAIRING_TTL_MS + 1)).toEqual({ ok: false, reason: 'expired' });
    expect(access.check(msg())).toMatchObject({ allowed: false });
  });

  it('does not pair where pairing is off, and never pairs in groups', () => {
    expect(access.check(msg({ channel: 'slack', sender: { id: 'U9' } }))).toEqual({
      allowed: false,
      reason: 'not-allowed',
    });
    const group = access.check(msg({ chatType: 'group', conversationKey: '-100:5', addressed: true }));
    expect(group).toMatchObject({ allowed: false, reason: 'not-allowed' });
    expect((group as { reply?: string }).reply).toContain('directly');
    expect(listPairing(store, undefined, now)).toEqual([]);
  });

  it('answers in groups only when addressed, in allowed groups, where groups are on', () => {
    const owner = { id: '1' };
    expect(
      access.check(msg({ sender: owner, chatType: 'group', conversationKey: '-100:5', addressed: false })),
    ).toEqual({ allowed: false, reason: 'group-not-addressed' });
    expect(access.check(msg({ sender: owner, chatType: 'group', conversationKey: '-100:5', addressed: true }))).toEqual(
      { allowed: true, owner: true },
    );
    const d = { channel: 'discord', sender: { id: 'D1' }, chatType: 'group' as const, addressed: true };
    expect(access.check(msg({ ...d, conversationKey: 'G2' }))).toEqual({ allowed: false, reason: 'group-not-allowed' });
    expect(access.check(msg({ ...d, conversationKey: 'G1' }))).toEqual({ allowed: true, owner: true });
    expect(
      access.check(msg({ channel: 'whatsapp', sender: { id: '49111' }, chatType: 'group', addressed: true })),
    ).toEqual({ allowed: false, reason: 'groups-disabled' });
  });

  it("accepts a thread of an allowed group channel by its parent key, not only by the thread's own id", () => {
    const d = { channel: 'discord', sender: { id: 'D1' }, chatType: 'group' as const, addressed: true };
    expect(access.check(msg({ ...d, conversationKey: 'T1' }))).toEqual({ allowed: false, reason: 'group-not-allowed' });
    expect(access.check(msg({ ...d, conversationKey: 'T1', parentKey: 'G1' }))).toEqual({ allowed: true, owner: true });
    expect(access.admits(msg({ ...d, conversationKey: 'T1', parentKey: 'G1' }))).toBe(true);
    expect(access.check(msg({ ...d, conversationKey: 'T1', parentKey: 'G2' }))).toEqual({
      allowed: false,
      reason: 'group-not-allowed',
    });
  });

  it('denies channels without config and trusts the local web channel', () => {
    const narrow = new AccessControl({ store, config: { telegram: config.telegram } });
    expect(narrow.check(msg({ channel: 'discord' }))).toEqual({ allowed: false, reason: 'channel-not-configured' });
    expect(narrow.check(msg({ channel: 'web' }))).toEqual({ allowed: true, owner: true });
  });

  it('caps pending codes per channel, and a flood of strangers never evicts a pending code', () => {
    const first = access.check(msg({ sender: { id: 'waiting', name: 'Real person' } }));
    const code = codeFrom((first as { reply?: string }).reply)!;
    const flood = MAX_PENDING_PER_CHANNEL * 5;
    const decisions = [];
    for (let i = 0; i < flood; i++) {
      now += 1;
      decisions.push(access.check(msg({ sender: { id: `s${i}` } })));
    }
    expect(listPairing(store, 'telegram', now)).toHaveLength(MAX_PENDING_PER_CHANNEL);
    // The stranger who came first still has their code, and it still works.
    expect(store.pendingFor('telegram', 'waiting')?.code).toBe(code.replace('-', ''));
    // Those past the cap get no code, and are told once why.
    const busy = decisions.slice(MAX_PENDING_PER_CHANNEL - 1);
    expect(busy.every((d) => !d.allowed && d.reason === 'pairing-busy')).toBe(true);
    expect((busy[0] as { reply?: string }).reply).toMatch(/Too many pairing requests are waiting/);
    expect(access.check(msg({ sender: { id: `s${flood - 1}` } }))).toEqual({ allowed: false, reason: 'pairing-busy' });
    expect(approvePairing(store, 'telegram', code, now)).toMatchObject({ ok: true, senderId: 'waiting' });
    // Expired codes make room again.
    now += PAIRING_TTL_MS;
    expect(codeFrom((access.check(msg({ sender: { id: 'later' } })) as { reply?: string }).reply)).toBeDefined();
  });

  it('gives one sender a few codes a day at most', () => {
    const codes: Array<string | undefined> = [];
    for (let i = 0; i < PAIRING_CODES_PER_SENDER; i++) {
      codes.push(codeFrom((access.check(msg({ sender: { id: 'again' } })) as { reply?: string }).reply));
      now += PAIRING_TTL_MS + 1; // the code expires unused
    }
    expect(new Set(codes).size).toBe(PAIRING_CODES_PER_SENDER);
    const refused = access.check(msg({ sender: { id: 'again' } }));
    expect(refused).toMatchObject({ allowed: false, reason: 'pairing-busy' });
    expect((refused as { reply?: string }).reply).toMatch(/too often; try again tomorrow/);
    expect(access.check(msg({ sender: { id: 'again' } }))).toEqual({ allowed: false, reason: 'pairing-busy' });
    now += PAIRING_CODES_WINDOW_MS;
    expect(codeFrom((access.check(msg({ sender: { id: 'again' } })) as { reply?: string }).reply)).toBeDefined();
  });
});
