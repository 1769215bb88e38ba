/**
 * One session, one conversation, end to end on the real CLI with steering.maxLive 0 (the first
 * conversation's process exits after each turn, so no process has its session open): /resume of
 * that session from a second conversation is refused, naming the first by title; --force moves it,
 * and the first starts a new session instead of writing the same one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, type EventWatch, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
beforeAll(async () => {
  mock = await startMockApi();
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')), steering: { maxLive: 0 } });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

async function command(w: EventWatch, conv: string, text: string): Promise<string> {
  const r = await gw.post(conv, text);
  expect(r.disposition).toBe('command');
  return String((await w.waitReply(r.messageId, 'notice')).data.text);
}

const sessionOf = (conv: string) => gw.gw.services.store.conversation(`web:${conv}`)?.sessionId ?? null;

describe('/resume of a session another conversation holds (real CLI, maxLive 0)', () => {
  it('is refused naming the holder by title; --force moves it, and the holder starts a new session', async () => {
    const wa = gw.watch('first');
    const wb = gw.watch('second');
    await Promise.all([wa.ready, wb.ready]);
    const a1 = await gw.post('first', 'fix the login bug tag:first-a1');
    expect((await wa.waitReply(a1.messageId, 'reply')).data.text).toBe('ok tag:first-a1');
    const held = sessionOf('first')!;
    expect(held).toMatch(/^[0-9a-f-]{36}$/);
    // maxLive 0: its process is gone, nothing has the session open.
    await waitUntil(() => !gw.gw.services.registry.get('web:first')?.pid(), 15_000);

    const b0 = await gw.post('second', 'something else tag:second-b0');
    await wb.waitReply(b0.messageId, 'reply');
    const refused = await command(wb, 'second', `/resume ${held}`);
    expect(refused).toBe(
      `Session ${held} belongs to conversation “fix the login bug tag:first-a1” (web:first): two conversations ` +
        `on one session write one transcript and mix their histories. Continue it there, or send /resume ${held} ` +
        '--force to move it here (that conversation then starts a new session).',
    );
    expect(sessionOf('second')).not.toBe(held);

    const moved = await command(wb, 'second', `/resume ${held} --force`);
    expect(moved).toContain(`This conversation continues session ${held}`);
    expect(moved).toContain(
      'It was moved from conversation “fix the login bug tag:first-a1” (web:first), which starts a new session at ' +
        'its next message',
    );
    expect(sessionOf('second')).toBe(held);
    expect(sessionOf('first')).toBeNull();
    expect(moved).toContain('and was told so');
    // The first conversation is told, in its own chat, once.
    const told = () =>
      wa.of('reply', (d) => d.kind === 'notice' && String(d.text).includes(`Session ${held} was moved`));
    await waitUntil(() => told().length > 0);
    expect(String(told()[0]!.data.text)).toBe(
      `ⓘ Session ${held} was moved to conversation “something else tag:second-b0” (web:second) (/resume --force ` +
        'there). This conversation starts a new session at its next message.',
    );
    expect(told()).toHaveLength(1);

    // The second conversation goes on with the first one's history; the first starts afresh.
    const b1 = await gw.post('second', 'continue here tag:second-b1');
    expect((await wb.waitReply(b1.messageId, 'reply')).data.text).toBe('ok tag:second-b1');
    const b1Request = mock.mainRequests().find((r) => r.lastUserText.includes('tag:second-b1'))!;
    expect(b1Request.historyText).toContain('tag:first-a1');
    expect(sessionOf('second')).toBe(held);
    const a2 = await gw.post('first', 'and this tag:first-a2');
    expect((await wa.waitReply(a2.messageId, 'reply')).data.text).toBe('ok tag:first-a2');
    const a2Request = mock.mainRequests().find((r) => r.lastUserText.includes('tag:first-a2'))!;
    expect(a2Request.historyText).not.toContain('tag:first-a1');
    expect(sessionOf('first')).not.toBe(held);
  });
});
