/**
 * Conversations sharing one app-server (the REAL codex, the mock Responses API): each thread in
 * its own cwd, a dead server failing exactly the turns it cut off, and nothing left after stop().
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processGone } from '../../../../../src/agents/codex/server/commands.js';
import { CodexServers } from '../../../../../src/agents/codex/server/servers.js';
import type { TurnEvent } from '../../../../../src/agents/session.js';
import { isRudderError, type RudderError } from '../../../../../src/errors.js';
import { recordingLogger, untilEvent, waitUntil } from '../../../../support/claude-rig.js';
import { codexHome, codexLaunch, trackCodex } from '../../../../support/codex-rig.js';
import { historyCopies, type MockResponses, startMockResponses } from '../../../../support/mock-responses.js';

let mock: MockResponses;
const rig = trackCodex();
const pools: CodexServers[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.stopAll('test over')));
});

beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  await mock.close();
});

/** Sessions of one test on one pool and one CODEX_HOME: they share an app-server. */
function sharedSessions(n: number) {
  const servers = rig.servers();
  const home = codexHome().codexHome;
  return Array.from({ length: n }, (_, i) => {
    const launch = codexLaunch({ mockUrl: mock.url, servers, codexHome: home, conversationId: `c${i}` });
    return { session: rig.session(launch), launch };
  });
}

async function commandPid(cwd: string, file: string): Promise<number> {
  const at = path.join(cwd, file);
  await waitUntil(() => fs.existsSync(at) && fs.readFileSync(at, 'utf8').trim() !== '', 20_000);
  return Number(fs.readFileSync(at, 'utf8').trim());
}

const settled = (p: Promise<unknown>): Promise<{ e?: RudderError }> =>
  p.then(
    () => ({}),
    (e: unknown) => ({ e: e as RudderError }),
  );

describe('codex: one app-server, several conversations (real codex)', () => {
  it('runs two conversations at once on one server, each command in its own cwd', async () => {
    const [a, b] = sharedSessions(2);
    const ta = a!.session.startTurn({ inputs: [{ id: 'a', text: 'where [[exec:sleep 1; pwd]] tag:a' }] });
    const tb = b!.session.startTurn({ inputs: [{ id: 'b', text: 'where [[exec:sleep 1; pwd]] tag:b' }] });
    const outputs = new Map<string, string>();
    for (const [name, turn] of [
      ['a', ta],
      ['b', tb],
    ] as const)
      turn.onEvent((e: TurnEvent) => e.type === 'tool-result' && outputs.set(name, e.excerpt));
    const [ra, rb] = await Promise.all([ta.result, tb.result]);
    expect(a!.session.pid()).toBe(b!.session.pid());
    expect(outputs.get('a')).toBe(`${a!.launch.cwd}\n`);
    expect(outputs.get('b')).toBe(`${b!.launch.cwd}\n`);
    expect(ra.text).toBe('done ok');
    expect(rb.text).toBe('done ok');
    expect(ra.sessionId).not.toBe(rb.sessionId);
    // Each thread's requests carry only its own conversation.
    const lastA = mock.requests.filter((q) => q.threadId === ra.sessionId).at(-1)!;
    expect(historyCopies(lastA, 'tag:a')).toBe(1);
    expect(historyCopies(lastA, 'tag:b')).toBe(0);
  });

  it('a dead server fails exactly the turns it cut off; an idle conversation resumes on the new one', async () => {
    const [a, b, c] = sharedSessions(3);
    const idle = await b!.session.startTurn({ inputs: [{ id: 'b0', text: 'remember tag:b0' }] }).result;
    const ta = a!.session.startTurn({
      inputs: [{ id: 'a1', text: 'long [[exec:echo $$ > a.pid; exec sleep 30]] tag:a1' }],
    });
    const tc = c!.session.startTurn({
      inputs: [{ id: 'c1', text: 'long [[exec:echo $$ > c.pid; exec sleep 30]] tag:c1' }],
    });
    await Promise.all([untilEvent(ta, 'tool-use'), untilEvent(tc, 'tool-use')]);
    const commands = [await commandPid(a!.launch.cwd, 'a.pid'), await commandPid(c!.launch.cwd, 'c.pid')];
    const server = a!.session.pid()!;
    expect(b!.session.pid()).toBe(server);
    process.kill(server, 'SIGKILL');
    const [oa, oc] = await Promise.all([settled(ta.result), settled(tc.result)]);
    expect(isRudderError(oa.e, 'AGENT_CRASHED')).toBe(true);
    expect(oa.e!.context.unanswered).toEqual(['a1']);
    expect(isRudderError(oc.e, 'AGENT_CRASHED')).toBe(true);
    expect(oc.e!.context.unanswered).toEqual(['c1']);
    expect(b!.session.state()).toBe('idle');
    await waitUntil(() => commands.every(processGone));
    const rb = await b!.session.startTurn({ inputs: [{ id: 'b1', text: 'next tag:b1' }] }).result;
    expect(rb.sessionId).toBe(idle.sessionId);
    expect(b!.session.pid()).not.toBe(server);
    const lastB = mock.requests.filter((q) => q.threadId === rb.sessionId).at(-1)!;
    expect(historyCopies(lastB, 'tag:b0')).toBe(1);
    // The cut-off conversation re-runs once, on the same new server.
    const ra = await a!.session.startTurn({ inputs: [{ id: 'a1', text: 'again tag:a1' }] }).result;
    expect(ra.text).toContain('tag:a1');
    expect(a!.session.pid()).toBe(b!.session.pid());
  });

  it("stop() ends the thread's commands; the last one's stop ends the server, its reason recorded", async () => {
    const tracked: string[] = [];
    const { logger, records } = recordingLogger();
    const servers = new CodexServers({
      logger,
      tracker: { started: (pid) => tracked.push(`started ${pid}`), exited: (pid) => tracked.push(`exited ${pid}`) },
    });
    pools.push(servers);
    const home = codexHome().codexHome;
    const [a, b] = [0, 1].map((i) => {
      const launch = codexLaunch({ mockUrl: mock.url, servers, codexHome: home, conversationId: `s${i}` });
      return { session: rig.session(launch), launch };
    });
    await b!.session.startTurn({ inputs: [{ id: 'b0', text: 'hello tag:b0' }] }).result;
    // A background command that outlives its turn (yield 1 s, then the turn ends while it runs).
    mock.setScript((req) =>
      /\[\[background\]\]/.test(req.lastUserText) && !req.afterTool
        ? { kind: 'reply', parts: [{ kind: 'exec', cmd: 'echo $$ > bg.pid; exec sleep 30', yieldMs: 1000 }] }
        : undefined,
    );
    const r = await a!.session.startTurn({ inputs: [{ id: 'a0', text: 'start it [[background]]' }] }).result;
    mock.setScript(undefined);
    expect(r.isError).toBe(false);
    const bg = await commandPid(a!.launch.cwd, 'bg.pid');
    expect(processGone(bg)).toBe(false);
    const server = a!.session.pid()!;
    await a!.session.stop('test: stop a');
    expect(processGone(bg)).toBe(true);
    expect(processGone(server)).toBe(false);
    expect((await b!.session.startTurn({ inputs: [{ id: 'b1', text: 'still here tag:b1' }] }).result).text).toBe(
      'ok tag:b1',
    );
    await b!.session.stop('test: stop b');
    await waitUntil(() => processGone(server));
    expect(a!.session.state()).toBe('stopped');
    expect(tracked).toEqual([`started ${server}`, `exited ${server}`]);
    const exit = records.find((r) => r.msg === 'codex app-server exited')!;
    expect(exit.reason).toBe('no conversation uses it any more (last: test: stop b)');
  });
});
