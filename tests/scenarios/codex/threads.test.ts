/**
 * A Codex project's threads in /sessions and bound by /resume, through a real gateway: the pinned
 * codex binary against the mock Responses API. One conversation makes two threads (/new between
 * them); another lists both (thread/list on the app-server) with their ids and first messages, and
 * resumes the first: its next message reaches the model with that thread's history, once.
 */
import { describe, expect, it } from 'vitest';
import { copiesInLast, sentTimes, storedSession, useCodexGateway } from '../../support/codex-gateway.js';
import type { startInProcess } from '../../support/gateway-rig.js';
import type { MockResponses } from '../../support/mock-responses.js';

let mock: MockResponses;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 60_000;

useCodexGateway((s) => void ({ mock, gw, budget } = s));

/** Sends a message and waits for its answer (a command's reply, or the agent's). */
async function say(conv: string, text: string, kind?: 'reply'): Promise<string> {
  const w = gw.watch(conv);
  await w.ready;
  try {
    const m = await gw.post(conv, text);
    return (await w.waitReply(m.messageId, kind, budget)).data.text as string;
  } finally {
    w.close();
  }
}

/** The /sessions line that names this thread, with its number. */
function lineOf(list: string, id: string): { n: number; line: string } | undefined {
  const line = list.split('\n').find((l) => /^\d+\. /.test(l) && l.includes(id));
  return line ? { n: Number(line.split('.')[0]), line } : undefined;
}

describe('Codex threads in /sessions and /resume (real codex)', () => {
  it('lists the project’s threads, and /resume continues one with its history', async () => {
    expect(await say('ta', 'first thread tag:t1', 'reply')).toBe('ok tag:t1');
    const first = storedSession(gw.home, 'web:ta')!;
    await say('ta', '/new');
    expect(await say('ta', 'second thread tag:t2', 'reply')).toBe('ok tag:t2');
    const second = storedSession(gw.home, 'web:ta')!;
    expect(second).not.toBe(first);

    const list = await say('tc', '/sessions');
    expect(list).toContain('Codex threads in default');
    const one = lineOf(list, first);
    const two = lineOf(list, second);
    expect(one?.line).toContain('“first thread tag:t1”');
    expect(two?.line).toContain('“second thread tag:t2”');
    expect(list).not.toContain('EXTERNAL_USER_MESSAGE');

    // The second thread is conversation ta's own: it does not move without --force.
    expect(await say('tc', `/resume ${two!.n}`)).toContain(`Session ${second} belongs to conversation`);
    expect(await say('tc', `/resume ${one!.n}`)).toContain(`continues session ${first}`);
    expect(await say('tc', 'go on tag:t3', 'reply')).toBe('ok tag:t3');
    const asked = mock.requests.filter((q) => q.userTexts.some((t) => t.includes('tag:t3')));
    expect(asked.map((q) => q.threadId)).toEqual([first]);
    expect(asked[0]!.historyTexts.some((t) => t.includes('first thread tag:t1'))).toBe(true);
    expect(asked[0]!.historyTexts.some((t) => t.includes('tag:t2'))).toBe(false);
    expect(sentTimes(mock.requests, 'tag:t3')).toBe(1);
    expect(copiesInLast(mock.requests, 'tag:t3')).toBe(1);
    expect(storedSession(gw.home, 'web:tc')).toBe(first);
  });
});
