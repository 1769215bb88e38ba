/**
 * What `permissionMode: relay` does NOT ask about, on the REAL pinned CLI (its own judgement of
 * read-only Bash): docs/security.md says so, and this keeps it honest. A command the CLI deems
 * read-only runs without a permission request; one that writes, reads outside the working
 * directory or prints the environment is asked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeStreamSession } from '../../../../src/agents/claude/stream-session.js';
import type { TurnEvent } from '../../../../src/agents/session.js';
import { rigLaunch, trackSessions } from '../../../support/claude-rig.js';
import { type MockApi, startMockApi } from '../../../support/mock-anthropic.js';

let mock: MockApi;
const sessions = trackSessions<ClaudeStreamSession>();
beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});

/** Runs one Bash command in relay mode; denies whatever is asked. */
async function run(command: string) {
  const launch = rigLaunch({ mockUrl: mock.url, launch: { permissionMode: 'relay' } });
  fs.writeFileSync(path.join(launch.cwd, '.env'), 'API_KEY=in-the-working-dir\n');
  const s = new ClaudeStreamSession(launch);
  sessions.push(s);
  const turn = s.startTurn({ inputs: [{ id: 'm', text: `[[bash:${command}]]` }] });
  const events: TurnEvent[] = [];
  turn.onEvent((e) => {
    events.push(e);
    if (e.type === 'permission') s.answerPermission(e.request.requestId, { optionId: 'deny' });
  });
  await turn.result;
  await new Promise((r) => setTimeout(r, 50));
  const asked = events.some((e) => e.type === 'permission');
  const result = events.find((e): e is Extract<TurnEvent, { type: 'tool-result' }> => e.type === 'tool-result');
  return { asked, ran: result !== undefined && !result.isError, output: result?.excerpt ?? '' };
}

describe('relay mode and the CLI’s read-only Bash (real CLI 2.1.332)', () => {
  it.each(['echo hi', 'echo $HOME', 'pwd', 'ls', 'whoami', 'cat .env'])('runs `%s` without asking', async (command) => {
    const r = await run(command);
    expect(r).toMatchObject({ asked: false, ran: true });
    if (command === 'cat .env') expect(r.output).toContain('API_KEY=in-the-working-dir');
  });

  it.each(['env', 'printenv HOME', 'echo $ANTHROPIC_API_KEY', 'touch x', 'cat /etc/hostname'])(
    'asks before `%s`',
    async (command) => {
      expect(await run(command)).toMatchObject({ asked: true, ran: false });
    },
  );
});
