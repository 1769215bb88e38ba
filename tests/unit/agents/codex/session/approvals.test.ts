/**
 * Codex's approval requests through the permission relay, on the REAL codex (relay mode:
 * approvalPolicy on-request, workspace-write sandbox) against the mock Responses API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRequest, Turn } from '../../../../../src/agents/session.js';
import { untilEvent } from '../../../../support/claude-rig.js';
import { codexLaunch, trackCodex } from '../../../../support/codex-rig.js';
import { type MockResponses, startMockResponses } from '../../../../support/mock-responses.js';

let mock: MockResponses;
const rig = trackCodex();

beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  await mock.close();
});

function relaySession() {
  const launch = codexLaunch({ mockUrl: mock.url, launch: { permissionMode: 'relay' } });
  return { session: rig.session(launch), launch };
}

/** A command that needs more than the sandbox: codex asks first. */
async function ask(turn: Turn): Promise<PermissionRequest> {
  return (await untilEvent(turn, 'permission')).request;
}

describe('codex approvals (real codex)', () => {
  it('offers what codex lists plus Deny, with effects named; Allow runs the command', async () => {
    const { session, launch } = relaySession();
    const marker = path.join(launch.cwd, 'allowed.txt');
    const turn = session.startTurn({ inputs: [{ id: 'a1', text: `go [[escalate:echo yes > ${marker}]] tag:a1` }] });
    const req = await ask(turn);
    expect(req.toolName).toBe('Bash');
    expect(req.input).toMatchObject({ command: `echo yes > ${marker}`, cwd: launch.cwd });
    expect(req.description).toBe('The test asks');
    const ids = req.options.map((o) => o.id);
    // 0.171 lists accept, an execpolicy amendment and cancel; Deny is added.
    expect(ids).toEqual(['allow', 'allow-prefix', 'deny', 'cancel']);
    expect(req.options.find((o) => o.id === 'allow-prefix')!.effect).toMatch(/without asking/);
    expect(req.options.find((o) => o.id === 'cancel')!.effect).toMatch(/stops the whole turn/);
    expect(req.options.find((o) => o.id === 'allow')!.effect).toBeUndefined();
    expect(session.answerPermission(req.requestId, { optionId: 'allow' })).toBe(true);
    // Answered once.
    expect(session.answerPermission(req.requestId, { optionId: 'allow' })).toBe(false);
    const r = await turn.result;
    expect(r.text).toBe('done ok');
    expect(fs.readFileSync(marker, 'utf8')).toBe('yes\n');
    const output = mock.requests.filter((q) => q.threadId === r.sessionId && q.afterTool).at(-1)!;
    expect(output.toolOutputs.join('')).toMatch(/exited with code 0/);
  });

  it('Deny (decline, not listed by codex) refuses the command and the turn goes on', async () => {
    const { session, launch } = relaySession();
    const marker = path.join(launch.cwd, 'denied.txt');
    const turn = session.startTurn({ inputs: [{ id: 'd1', text: `go [[escalate:echo no > ${marker}]] tag:d1` }] });
    const req = await ask(turn);
    const results: boolean[] = [];
    turn.onEvent((e) => e.type === 'tool-result' && results.push(e.isError));
    expect(session.answerPermission(req.requestId, { optionId: 'deny' })).toBe(true);
    const r = await turn.result;
    expect(r.isError).toBe(false);
    expect(r.text).toBe('done ok');
    expect(fs.existsSync(marker)).toBe(false);
    expect(results).toEqual([true]);
    const output = mock.requests.filter((q) => q.threadId === r.sessionId && q.afterTool).at(-1)!;
    expect(output.toolOutputs.join('')).toMatch(/rejected by user/);
  });

  it('"Deny and stop the turn" (cancel) ends the turn as interrupted; the session goes on', async () => {
    const { session, launch } = relaySession();
    const marker = path.join(launch.cwd, 'cancelled.txt');
    const turn = session.startTurn({ inputs: [{ id: 'c1', text: `go [[escalate:echo no > ${marker}]] tag:c1` }] });
    const req = await ask(turn);
    expect(session.answerPermission(req.requestId, { optionId: 'cancel' })).toBe(true);
    const r = await turn.result;
    expect(r.interrupted).toBe(true);
    expect(r.inputIds).toEqual(['c1']);
    expect(fs.existsSync(marker)).toBe(false);
    const next = await session.startTurn({ inputs: [{ id: 'c2', text: 'next tag:c2' }] }).result;
    expect(next.text).toMatch(/ok tag:c2$/);
  });

  it('"always allow" (an execpolicy amendment) does what its effect says: the command no longer asks', async () => {
    const { session, launch } = relaySession();
    const marker = path.join(launch.cwd, 'rule.txt');
    const text = `go [[escalate:echo rule >> ${marker}]]`;
    const first = session.startTurn({ inputs: [{ id: 'r1', text: `${text} tag:r1` }] });
    const req = await ask(first);
    expect(session.answerPermission(req.requestId, { optionId: 'allow-prefix' })).toBe(true);
    await first.result;
    const second = session.startTurn({ inputs: [{ id: 'r2', text: `${text} tag:r2` }] });
    const asked: string[] = [];
    second.onEvent((e) => e.type === 'permission' && asked.push(e.request.requestId));
    await second.result;
    expect(asked).toEqual([]);
    expect(fs.readFileSync(marker, 'utf8')).toBe('rule\nrule\n');
  });

  it('a request still open when the turn is interrupted can no longer be answered', async () => {
    const { session, launch } = relaySession();
    const turn = session.startTurn({
      inputs: [{ id: 'i1', text: `go [[escalate:echo x > ${path.join(launch.cwd, 'i.txt')}]] tag:i1` }],
    });
    const req = await ask(turn);
    await session.interrupt();
    expect((await turn.result).interrupted).toBe(true);
    expect(session.answerPermission(req.requestId, { optionId: 'allow' })).toBe(false);
    expect(fs.existsSync(path.join(launch.cwd, 'i.txt'))).toBe(false);
  });

  it('an unknown option is refused and the request stays open', async () => {
    const { session, launch } = relaySession();
    const turn = session.startTurn({
      inputs: [{ id: 'u1', text: `go [[escalate:echo x > ${path.join(launch.cwd, 'x.txt')}]] tag:u1` }],
    });
    const req = await ask(turn);
    expect(session.answerPermission(req.requestId, { optionId: 'allow-session' })).toBe(false);
    expect(session.answerPermission(req.requestId, { optionId: 'deny' })).toBe(true);
    await turn.result;
  });
});
