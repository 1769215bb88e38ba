/**
 * Found by the chaos suite: the CLI runs each Bash tool in a session of its own (setsid), outside
 * the process group Rudder kills. When the claude process dies mid-tool (kill -9, OOM, a crash),
 * its tool keeps running, and the re-run of the turn starts the same tool a second time.
 * Nothing an agent started may outlive it. Real CLI and mock Messages API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeStreamSession } from '../../../../src/agents/claude/stream-session.js';
import { rigLaunch, waitUntil } from '../../../support/claude-rig.js';
import { type MockApi, startMockApi } from '../../../support/mock-anthropic.js';
import { processesOfRun } from '../../../support/procs.js';

let mock: MockApi;
beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock?.close();
});

describe('tool processes of a claude killed mid-tool', () => {
  it('do not outlive it', async () => {
    const launch = rigLaunch({ mockUrl: mock.url, conversationId: 'orphans' });
    const session = new ClaudeStreamSession(launch);
    try {
      const turn = session.startTurn({ inputs: [{ id: 'o1', text: 'long [[bash:echo start; sleep 30]]' }] });
      turn.result.catch(() => undefined);
      await waitUntil(() => processesOfRun(launch.home).some((p) => /sleep 30/.test(p.cmdline)), 20_000);
      process.kill(session.pid()!, 'SIGKILL');
      await turn.result.catch(() => undefined);
      await session.stop('test over');
      await waitUntil(() => processesOfRun(launch.home).length === 0, 10_000).catch(() => undefined);
      expect(processesOfRun(launch.home).map((p) => p.cmdline)).toEqual([]);
    } finally {
      for (const p of processesOfRun(launch.home)) process.kill(p.pid, 'SIGKILL');
    }
  });
});
