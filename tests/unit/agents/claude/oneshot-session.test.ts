/**
 * The one-shot session (one plain `claude -p` process per turn) on the REAL pinned CLI against the
 * mock Messages API: the prompt travels on stdin, never in argv.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeOneShotSession } from '../../../../src/agents/claude/oneshot-session.js';
import { rigLaunch, trackSessions, untilEvent } from '../../../support/claude-rig.js';
import { type MockApi, startMockApi } from '../../../support/mock-anthropic.js';

let mock: MockApi;
const sessions = trackSessions<ClaudeOneShotSession>();

beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});

function newSession() {
  const session = new ClaudeOneShotSession(rigLaunch({ mockUrl: mock.url, conversationId: 'oneshot' }));
  sessions.push(session);
  return session;
}

describe('claude one-shot session (real CLI)', () => {
  it('passes the prompt on stdin: it is not on the command line', async () => {
    const session = newSession();
    const turn = session.startTurn({ inputs: [{ id: 'o1', text: 'secret-looking text [[bash:sleep 2]] tag:o1' }] });
    await untilEvent(turn, 'tool-use');
    const cmdline = fs.readFileSync(`/proc/${session.pid()}/cmdline`, 'utf8');
    expect(cmdline).toContain('--output-format');
    expect(cmdline).not.toContain('secret-looking');
    expect(cmdline).not.toContain('tag:o1');
    expect((await turn.result).text).toBe('done ok');
    expect(mock.mainRequests().some((q) => q.lastText.includes('secret-looking text'))).toBe(true);
  });

  it('runs a merged prompt over 128 KiB (too long for one argv string), answering every input', async () => {
    const session = newSession();
    const big = (tag: string) => `${'x'.repeat(99 * 1024)} tag:${tag}`;
    const r = await session.startTurn({
      inputs: [
        { id: 'b1', text: big('b1') },
        { id: 'b2', text: big('b2') },
      ],
    }).result;
    expect(r.inputIds).toEqual(['b1', 'b2']);
    expect(r.text).toBe('ok tag:b1 tag:b2');
    expect(mock.mainRequests().at(-1)!.lastUserText.length).toBeGreaterThan(198 * 1024);
  });
});
