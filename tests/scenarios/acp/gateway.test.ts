/**
 * A conversation on the page running on a real ACP agent through a real gateway (`backend: "acp:<agent>"`), offline:
 * Claude's adapter 0.101 (offers steering) and Gemini CLI 0.61 (does not), each against the mock of its model API.
 * The agent runs through acp-tap.mjs, whose log is what the agent was asked: the tests read it to show that no
 * second session/prompt is ever sent while one runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acpAgentConfig, answerTo, promptsAtOnce, sent, tapLog } from '../../support/acp-gateway.js';
import { type AcpRig, startAcpRig } from '../../support/acp-rig.js';
import { waitUntil } from '../../support/claude-rig.js';
import { roundTripBudget } from '../../support/codex-gateway.js';
import { type EventWatch, startInProcess } from '../../support/gateway-rig.js';

type Gateway = Awaited<ReturnType<typeof startInProcess>>;
interface PageOption {
  id: string;
  kind: 'allow' | 'deny';
  effect?: string;
}

/** Answers every permission request of the watch as it comes, with the option of that kind offered once. */
function answerAll(gw: Gateway, w: EventWatch, conv: string, kind: 'allow' | 'deny'): () => void {
  const done = new Set<string>();
  const timer = setInterval(() => {
    for (const p of w.of('permission', (d) => !d.resolved && !d.withdrawn)) {
      const id = p.data.requestId as string;
      if (done.has(id)) continue;
      done.add(id);
      const option = (p.data.options as PageOption[]).find((o) => o.kind === kind && !o.effect)!;
      void gw.api('POST', `/api/conversations/${conv}/permissions/${id}`, { optionId: option.id });
    }
  }, 50);
  return () => clearInterval(timer);
}

/** A command that runs long enough to be stopped, with a duration no other test uses. */
function longCommand(seconds: number): { cmd: string; needle: string } {
  const needle = `sleep ${seconds}.${Math.floor(Math.random() * 9000 + 1000)}`;
  return { cmd: `echo start; ${needle}; echo end`, needle };
}

function running(needle: string): boolean {
  return fs.readdirSync('/proc').some((pid) => {
    try {
      return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(needle);
    } catch {
      return false;
    }
  });
}

const CRASH_NOTICE = '↻ The agent stopped unexpectedly; running your message again on the resumed session.';

/** The agent's own process: the one the tap started (the tap is the process Rudder started). */
function agentUnder(tapPid: number): number {
  const children = fs.readFileSync(`/proc/${tapPid}/task/${tapPid}/children`, 'utf8').trim().split(/\s+/);
  return Number(children[0]);
}

describe.each(['claude', 'gemini'] as const)('a conversation on acp:%s through the gateway', (agent) => {
  let rig: AcpRig;
  let gw: Gateway;
  let log: string;
  let budget = 60_000;

  beforeAll(async () => {
    rig = await startAcpRig(agent);
    const config = acpAgentConfig(rig, 'relay');
    log = config.log;
    gw = await startInProcess({ agent: config.agent });
    budget = await roundTripBudget(gw, 'budget');
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await rig?.close();
  });

  it('a message runs one turn on the agent: the input wrapped once, one reply, the session saved', async () => {
    const w = gw.watch('rt');
    await w.ready;
    const m = await gw.post('rt', 'hello tag:rt1');
    expect(m.disposition).toBe('turn');
    const r = await w.waitReply(m.messageId, 'reply', budget);
    expect(r.data.text).toContain('ok tag:rt1');
    expect(rig.timesSent('tag:rt1')).toBe(1);
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
    const sessionId = gw.gw.services.store.conversation('web:rt')!.sessionId;
    expect(sent(tapLog(log), 'session/new').length).toBeGreaterThan(0);
    const prompts = sent(tapLog(log), 'session/prompt').filter((p) => p.sessionId === sessionId);
    expect(prompts).toHaveLength(1);
    expect(answerTo(tapLog(log), prompts[0]!)?.stopReason).toBe('end_turn');
    const status = (await (await gw.api('GET', '/api/status')).json()) as any;
    const session = status.sessions.find((s: { conversationId: string }) => s.conversationId === 'web:rt');
    expect(session).toMatchObject({ backend: `acp:${agent}`, sessionId, state: 'idle' });
    expect(w.repliesFor(m.messageId, 'reply')).toHaveLength(1);
  });

  it('a permission request answered from the page by kind: the tool shown with its input, run once', async () => {
    const w = gw.watch('perm');
    await w.ready;
    const m = await gw.post('perm', `${rig.askingShell('touch approved.txt')} tag:p1`);
    const p = await w.wait('permission', (d) => !d.resolved && !d.withdrawn, budget);
    const options = p.data.options as PageOption[];
    // The agent's own option ids, each with Rudder's kind.
    expect(options.map((o) => o.kind)).toEqual(expect.arrayContaining(['allow', 'deny']));
    const allow = options.find((o) => o.kind === 'allow' && !o.effect)!;
    const url = `/api/conversations/perm/permissions/${p.data.requestId}`;
    expect((await gw.api('POST', url, { optionId: allow.id })).status).toBe(200);
    await w.waitReply(m.messageId, 'reply', budget);
    expect(fs.existsSync(path.join(rig.cwd, 'approved.txt'))).toBe(true);
    const tool = w.of('step', (d) => (d.step as { kind: string }).kind === 'tool').at(-1)!;
    expect(JSON.stringify(tool.data.step)).toContain('touch approved.txt');
    expect(w.repliesFor(m.messageId, 'reply')).toHaveLength(1);
  });

  it('/stop during a long tool ends the tool, keeps the session, and the next message is answered on it', async () => {
    const w = gw.watch('stop');
    await w.ready;
    const stopAnswering = answerAll(gw, w, 'stop', 'allow');
    try {
      await gw.post('stop', 'first tag:sp0').then((m) => w.waitReply(m.messageId, 'reply', budget));
      const sessionId = gw.gw.services.store.conversation('web:stop')!.sessionId;
      const long = longCommand(20);
      const a = await gw.post('stop', `${rig.shell(long.cmd)} tag:sp1`);
      await waitUntil(() => running(long.needle), budget);
      const stop = await gw.post('stop', '/stop');
      expect(stop.disposition).toBe('command');
      await waitUntil(() => gw.gw.services.store.message(a.messageId)!.state === 'stopped', budget);
      await waitUntil(() => !running(long.needle), 15_000);
      expect(sent(tapLog(log), 'session/cancel').some((c) => c.sessionId === sessionId)).toBe(true);
      const b = await gw.post('stop', 'again tag:sp2');
      const r = await w.waitReply(b.messageId, 'reply', budget);
      expect(r.data.text).toContain('ok tag:sp2');
      expect(gw.gw.services.store.conversation('web:stop')!.sessionId).toBe(sessionId);
      expect(sent(tapLog(log), 'session/new').filter((n) => n.sessionId === sessionId)).toHaveLength(0);
    } finally {
      stopAnswering();
    }
  });

  it('a message sent mid-turn is steered only where the agent offers it; never a second prompt mid-turn', async () => {
    const w = gw.watch('mid');
    await w.ready;
    const stopAnswering = answerAll(gw, w, 'mid', 'allow');
    try {
      const long = longCommand(4);
      const a = await gw.post('mid', `${rig.shell(long.cmd)} tag:md1`);
      await waitUntil(() => running(long.needle), budget);
      const b = await gw.post('mid', 'and also this tag:md2');
      const sessionId = gw.gw.services.store.conversation('web:mid')!.sessionId;
      if (agent === 'claude') {
        expect(b.disposition).toBe('steered');
        const r = await w.waitReply(b.messageId, 'reply', budget);
        expect(r.data.messageIds).toEqual([a.messageId, b.messageId]);
        const steers = sent(tapLog(log), '_session/steering').filter((s) => s.sessionId === sessionId);
        expect(steers).toHaveLength(1);
        expect(answerTo(tapLog(log), steers[0]!)?.outcome).toBe('injected');
        expect(w.of('ack', (d) => d.messageId === b.messageId).map((e) => e.data.kind)).toContain('steered');
      } else {
        expect(b.disposition).toBe('queued');
        await w.waitReply(b.messageId, 'reply', budget);
        const told = w.of(
          'reply',
          (d) => d.kind === 'notice' && /cannot take a message while it works/.test(`${d.text}`),
        );
        expect(told).toHaveLength(1);
        expect(told[0]!.data.text).toMatch(/^ⓘ Gemini cannot/);
        expect(sent(tapLog(log), '_session/steering')).toHaveLength(0);
        expect(w.repliesFor(a.messageId, 'reply')).toHaveLength(1);
      }
      expect(w.repliesFor(b.messageId, 'reply')).toHaveLength(1);
      expect(rig.timesSent('tag:md2')).toBe(1);
      expect(promptsAtOnce(tapLog(log))).toBe(1);
    } finally {
      stopAnswering();
    }
  });

  it('kill -9 of the agent mid-turn: one outcome, the message run again once with the note, one reply', async () => {
    const w = gw.watch('kill');
    await w.ready;
    const stopAnswering = answerAll(gw, w, 'kill', 'allow');
    try {
      const long = longCommand(3);
      const a = await gw.post('kill', `${rig.shell(long.cmd)} tag:kl1`);
      await waitUntil(() => running(long.needle), budget);
      const status = (await (await gw.api('GET', '/api/status')).json()) as any;
      const tap = status.sessions.find((s: { conversationId: string }) => s.conversationId === 'web:kill').pid;
      process.kill(agentUnder(tap), 'SIGKILL');
      const r = await w.waitReply(a.messageId, 'reply', budget);
      expect(r.data.text).toContain('ok');
      expect(w.repliesFor(a.messageId, 'notice').map((e) => e.data.text)).toContain(CRASH_NOTICE);
      // Sent twice in all: cut off once, run again once.
      expect(rig.timesSent('tag:kl1')).toBe(2);
      const b = await gw.post('kill', 'after tag:kl2');
      await w.waitReply(b.messageId, 'reply', budget);
      expect(w.repliesFor(a.messageId, 'reply')).toHaveLength(1);
      expect(gw.gw.services.store.message(a.messageId)!.state).toBe('answered');
    } finally {
      stopAnswering();
    }
  });
});
