/**
 * Discord through the whole gateway: the real discord.js adapter against the fake Discord, the
 * real CLI against the mock Messages API. A thread is a channel of its own; a group allowlist that
 * names its parent channel admits it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { botMention, type FakeDiscord, startFakeDiscord } from '../../support/fake-discord.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

const GUILD = '500000000000000001';
const ALLOWED = '600000000000000001';
const OTHER = '600000000000000002';
const THREAD = '700000000000000001';
const OTHER_THREAD = '700000000000000002';
const ann = { id: '420000000000000001', username: 'ann', discriminator: '0', global_name: 'Ann', avatar: null };
let nextId = 3000;
let mock: MockApi;
let fake: FakeDiscord;
let gw: Awaited<ReturnType<typeof startInProcess>>;

const mention = (channelId: string, content: string) =>
  botMention(fake, { id: String(nextId++), channelId, guildId: GUILD, author: ann, text: content });
const postsTo = (channelId: string) =>
  fake.callsTo('POST', new RegExp(`^/channels/${channelId}/messages$`)).map((c) => String(c.body?.content ?? ''));
const stateOf = (tag: string) =>
  gw.gw.services.store.db.prepare('SELECT state, reason FROM messages WHERE text LIKE ?').get(`%${tag}%`) as
    | { state: string; reason: string | null }
    | undefined;

beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(async () => {
  fake = await startFakeDiscord({
    guilds: [
      {
        id: GUILD,
        channels: [
          { id: ALLOWED, name: 'build' },
          { id: OTHER, name: 'random' },
        ],
        threads: [
          { id: THREAD, name: 'release', parent_id: ALLOWED },
          { id: OTHER_THREAD, name: 'lunch', parent_id: OTHER },
        ],
      },
    ],
  });
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    channels: { discord: { token: fake.token, restApi: fake.restApi, owners: [ann.id], groups: { allow: [ALLOWED] } } },
  });
  await fake.ready();
});
afterEach(async () => {
  await gw.stop();
  await fake.close();
});

describe('discord through the gateway (real discord.js, real CLI)', () => {
  it('answers in a thread of an allowed channel, and still refuses a thread of another channel', async () => {
    fake.dispatch('MESSAGE_CREATE', mention(THREAD, 'in the thread tag:thr'));
    await waitUntil(() => postsTo(THREAD).some((t) => t.includes('ok tag:thr')), 30_000);
    expect(stateOf('tag:thr')).toEqual({ state: 'answered', reason: null });

    fake.dispatch('MESSAGE_CREATE', mention(OTHER_THREAD, 'elsewhere tag:oth'));
    await waitUntil(() => stateOf('tag:oth') !== undefined);
    expect(stateOf('tag:oth')).toEqual({ state: 'refused', reason: 'group-not-allowed' });
    expect(mock.requests.some((r) => r.historyText.includes('tag:oth'))).toBe(false);
  });
});
