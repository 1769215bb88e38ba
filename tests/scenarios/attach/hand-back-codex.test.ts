/**
 * `rudder attach` on a Codex conversation: the built CLI prints the line that resumes its thread in Codex's own
 * TUI (`codex resume -C <dir> <thread>`), and Rudder holds the conversation's messages while Codex has the thread
 * (one writer at a time): a message sent meanwhile reaches no model until the thread is handed back
 * (`rudder attach --done`), then runs once, in the same thread. The real codex binary against the mock Responses
 * API.
 */
import { describe, expect, it } from 'vitest';
import { sentTimes, useCodexGateway } from '../../support/codex-gateway.js';
import type { startInProcess } from '../../support/gateway-rig.js';
import type { MockResponses } from '../../support/mock-responses.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockResponses;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 60_000;
useCodexGateway((s) => void ({ mock, gw, budget } = s));

describe('rudder attach on a Codex conversation (real codex)', () => {
  it('prints the resume line; messages wait until the thread is handed back, then run once in it', async () => {
    const conv = 'cx-hand';
    const env = cleanEnv({ RUDDER_URL: gw.ep.base, RUDDER_TOKEN: gw.ep.token });
    const watch = gw.watch(conv);
    await watch.ready;
    const first = await gw.post(conv, 'first tag:cx-one');
    await watch.waitReply(first.messageId, 'reply', budget);
    const store = gw.gw.services.store;
    const thread = store.conversation(`web:${conv}`)?.sessionId;
    expect(thread).toBeTruthy();

    const printed = await runCli(['attach', conv], { env, timeoutMs: budget });
    expect(printed.status).toBe(0);
    expect(printed.stdout.trim()).toMatch(new RegExp(`^\\S*codex resume -C \\S+ ${thread}$`));
    expect(printed.stderr).toContain('holds this conversation');

    const during = await gw.post(conv, 'while codex has it tag:cx-two');
    expect(during.disposition).toBe('queued');
    await watch.wait('ack', (d) => d.messageId === during.messageId && String(d.note).includes('open in a terminal'));
    expect(store.message(during.messageId)).toMatchObject({ state: 'deferred', heldFor: 'terminal-open' });
    expect(sentTimes(mock.requests, 'tag:cx-two')).toBe(0);

    const back = await runCli(['attach', conv, '--done'], { env, timeoutMs: budget });
    expect(back.status).toBe(0);
    expect(back.stderr).toContain('1 held message(s) now run');
    await watch.waitReply(during.messageId, 'reply', budget);
    expect(sentTimes(mock.requests, 'tag:cx-two')).toBe(1);
    expect(store.conversation(`web:${conv}`)?.sessionId).toBe(thread);
    const again = await runCli(['attach', conv, '--done'], { env, timeoutMs: budget });
    expect(again.stderr).toContain('Nothing of cx-hand was held');
  }, 300_000);
});
