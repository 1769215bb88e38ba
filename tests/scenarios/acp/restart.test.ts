/**
 * A restart of Rudder under a conversation on an ACP agent. Claude's adapter offers session/load: after a kill -9
 * of Rudder mid-turn, the new gateway loads the saved session (its replayed history is not shown again), runs the
 * cut-off message again once, and answers it once. The small agent of our own offers no load: after a restart the
 * conversation goes on in a new session, and the person is told it starts without the earlier turns.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { OPEN_STATES } from '../../../src/store/types.js';
import { acpAgentConfig, fakeAcpConfig, sent, tapLog } from '../../support/acp-gateway.js';
import { type AcpRig, startAcpRig } from '../../support/acp-rig.js';
import { pidAlive, tempDir, waitUntil } from '../../support/claude-rig.js';
import { storedSession, storedStates } from '../../support/codex-gateway.js';
import { startChild, startInProcess } from '../../support/gateway-rig.js';

const BUDGET = 90_000;
const RESTART_NOTICE =
  '↻ Rudder restarted while this message was being worked on; running it again on the resumed session.';

const running: Array<{ stop(): Promise<void> }> = [];
let rig: AcpRig | undefined;
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.stop()));
});
afterAll(async () => {
  await rig?.close();
});

async function statusPid(g: { api(m: string, p: string): Promise<Response> }, conv: string): Promise<number> {
  const status = (await (await g.api('GET', '/api/status')).json()) as any;
  return status.sessions.find((s: { conversationId: string }) => s.conversationId === `web:${conv}`).pid;
}

describe('a restart of Rudder on acp:claude (the agent loads sessions)', () => {
  it('after kill -9 mid-turn: the session loaded, the cut-off message run again once and answered once', async () => {
    rig = await startAcpRig('claude');
    const home = tempDir('rhome');
    const { agent, log } = acpAgentConfig(rig, 'bypassPermissions');
    const first = await startChild({ agent }, { home });
    running.push(first);
    const w1 = first.watch('rs');
    await w1.ready;
    const warm = await first.post('rs', 'remember tag:rs0');
    await w1.waitReply(warm.messageId, 'reply', BUDGET);
    const sessionId = storedSession(home, 'web:rs');
    expect(sessionId).toBeTruthy();
    const m = await first.post('rs', `${rig.shell('echo start; sleep 3.4321; echo end')} tag:rs1`);
    await w1.wait('step', (d) => (d.step as { kind: string }).kind === 'tool', BUDGET);
    const agentPid = await statusPid(first, 'rs');
    await first.kill9();
    expect(storedStates(home)[m.messageId]).toBe('running');

    const second = await startChild({ agent }, { home, cwd: first.cwd });
    running.push(second);
    // What the dead gateway left (the agent's process) is stopped at the restart.
    await waitUntil(() => !pidAlive(agentPid), BUDGET);
    const w2 = second.watch('rs', 0);
    await w2.ready;
    const r = await w2.waitReply(m.messageId, 'reply', BUDGET);
    expect(r.data.text).toBe('done ok');
    expect(w2.repliesFor(m.messageId, 'notice').map((e) => e.data.text)).toEqual([RESTART_NOTICE]);
    // Loaded, not made anew: the agent was asked session/load with the saved id, and the model kept the context.
    const loads = sent(tapLog(log), 'session/load');
    expect(loads.map((l) => l.sessionId)).toEqual([sessionId]);
    expect(storedSession(home, 'web:rs')).toBe(sessionId);
    const rerun = rig.seen().filter((q) => q.newInputs.some((t) => t.includes('tag:rs1')));
    expect(rerun.at(-1)!.history.join('\n')).toContain('tag:rs0');
    // Sent twice in all: cut off once, run again once.
    expect(rig.timesSent('tag:rs1')).toBe(2);
    // The replayed history is not shown again: no step or reply of the earlier turns after the restart.
    const sentinel = await second.post('rs', 'sentinel tag:rs2');
    await w2.waitReply(sentinel.messageId, 'reply', BUDGET);
    expect(w2.repliesFor(warm.messageId, 'reply')).toHaveLength(1);
    expect(w2.repliesFor(m.messageId, 'reply')).toHaveLength(1);
    const states = storedStates(home);
    expect(states[m.messageId]).toBe('answered');
    expect(Object.values(states).filter((s) => OPEN_STATES.includes(s as never))).toEqual([]);
  }, 240_000);
});

describe('a restart of Rudder on an agent that cannot load sessions (backend "acp")', () => {
  it('the next message runs in a new session, and the person is told it starts without the earlier turns', async () => {
    const home = tempDir('rhome');
    const { agent, log } = fakeAcpConfig();
    const first = await startInProcess({ agent }, { home });
    const w1 = first.watch('fr');
    await w1.ready;
    const a = await first.post('fr', 'first tag:fr1');
    await w1.waitReply(a.messageId, 'reply', BUDGET);
    await first.stop();

    const second = await startInProcess({ agent }, { home });
    running.push(second);
    const w2 = second.watch('fr', 0);
    await w2.ready;
    const b = await second.post('fr', 'second tag:fr2');
    const r = await w2.waitReply(b.messageId, 'reply', BUDGET);
    expect(r.data.text).toBe('ok');
    const told = w2.of('reply', (d) => d.kind === 'notice' && /starts without the earlier turns/.test(`${d.text}`));
    expect(told.map((e) => e.data.text)).toEqual([
      'Fake agent cannot load a saved session: it starts without the earlier turns.',
    ]);
    expect(sent(tapLog(log), 'session/load')).toHaveLength(0);
    expect(sent(tapLog(log), 'session/new')).toHaveLength(2);
    expect(w2.repliesFor(a.messageId, 'reply')).toHaveLength(1);
    expect(w2.repliesFor(b.messageId, 'reply')).toHaveLength(1);
    const c = await second.post('fr', 'third tag:fr3');
    await w2.waitReply(c.messageId, 'reply', BUDGET);
    // Told once: the next turn runs on the new session with nothing more said.
    expect(w2.of('reply', (d) => /starts without the earlier turns/.test(`${d.text}`))).toHaveLength(1);
    expect(w2.repliesFor(c.messageId, 'notice')).toHaveLength(0);
  });
});
