/**
 * ACP agents, the floor against Rudder (run: `npx tsx bench/acp/main.ts [claude|codex|gemini|copilot…]`;
 * not in bench/main.ts yet). Each agent runs offline against its mock (tests/support/acp-rig.ts), the
 * mock answering at once, so the figures are the agent's and the client's own time:
 *   cold            spawn → initialize → session/new → prompt → first text
 *   new session     session/new → prompt → first text, in a warm process (the floor only: AcpSession
 *                   runs one process per conversation, so its new conversation is the cold figure)
 *   warm turn       prompt → first text, the session warm
 *   steer (Claude)  a message sent while a tool runs → the model's next request carries it
 *   memory          PSS of one process holding 1 and 3 sessions, against 3 processes of 1 session;
 *                   and Rudder's 3 conversations on one shared process (AcpProcesses)
 * The floor is bench/acp/floor-client.ts (the SDK only); Rudder's side is AcpSession.
 */
import { performance } from 'node:perf_hooks';
import { AcpSession } from '../../src/agents/acp/acp-session.js';
import type { AcpCommand } from '../../src/agents/acp/command.js';
import { PRESETS } from '../../src/agents/acp/presets.js';
import { AcpProcesses } from '../../src/agents/acp/processes.js';
import { silentLogger } from '../../src/ops/logger.js';
import { type AcpRig, NO_ASKING, RIG_AGENTS, type RigAgent, startAcpRig } from '../../tests/support/acp-rig.js';
import { treePss } from '../codex/pss.js';
import { mb, ms, sleep, summarize } from '../stats.js';
import { type AgentSpec, FloorClient } from './floor-client.js';

const WARM_TURNS = 5;
const line = (label: string, floor: number, rudder?: number) =>
  console.log(
    `  ${label.padEnd(34)} floor ${ms(floor).padStart(8)}   Rudder ${rudder === undefined ? 'n/a' : ms(rudder)}`,
  );
const median = (v: number[]) => summarize(v).p50;

function specOf(rig: AcpRig): AgentSpec {
  const launch = rig.launch();
  const cmd = launch.command as AcpCommand;
  return { bin: cmd.bin, args: cmd.args, env: launch.env, cwd: rig.cwd };
}

/** The session mode Rudder's sessions run in here (the rig's permission mode, through the preset). */
const modeOf = (rig: AcpRig) => PRESETS[rig.agent].modes[NO_ASKING] ?? {};

/** The floor wraps what it sends as Rudder does (the mock counts wrapped inputs), with a fixed id. */
const wrapped = (text: string) =>
  `<<<EXTERNAL_USER_MESSAGE id=floor>>>\n${text}\n<<<END_EXTERNAL_USER_MESSAGE id=floor>>>`;

async function floorTimes(rig: AcpRig) {
  const t0 = performance.now();
  const floor = new FloorClient(specOf(rig));
  try {
    await floor.initialize();
    const sid = await floor.newSession(rig.cwd, modeOf(rig));
    const first = floor.prompt(sid, 'cold tag:fc');
    await first.firstText;
    const cold = performance.now() - t0;
    await first.done;
    const warm: number[] = [];
    for (let i = 0; i < WARM_TURNS; i++) {
      const p = floor.prompt(sid, `warm tag:fw${i}`);
      warm.push(await p.firstText);
      await p.done;
    }
    const fresh: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s0 = performance.now();
      const s = await floor.newSession(rig.cwd, modeOf(rig));
      const p = floor.prompt(s, `new tag:fn${i}`);
      await p.firstText;
      fresh.push(performance.now() - s0);
      await p.done;
    }
    return { cold, warm: median(warm), fresh: median(fresh) };
  } finally {
    floor.close();
  }
}

/** ms from a turn's start to its first text-delta, and the turn's end. */
async function rudderTurn(s: AcpSession, text: string, id: string): Promise<number> {
  const t0 = performance.now();
  const turn = s.startTurn({ inputs: [{ id, text }] });
  const first = new Promise<number>((resolve) => {
    const off = turn.onEvent((e) => {
      if (e.type === 'text-delta') off(), resolve(performance.now() - t0);
    });
  });
  await turn.result;
  return first;
}

async function rudderTimes(rig: AcpRig) {
  const s = new AcpSession(rig.launch({ conversationId: 'bench' }));
  try {
    const cold = await rudderTurn(s, 'cold tag:rc', 'rc');
    const warm: number[] = [];
    for (let i = 0; i < WARM_TURNS; i++) warm.push(await rudderTurn(s, `warm tag:rw${i}`, `rw${i}`));
    return { cold, warm: median(warm) };
  } finally {
    await s.stop('benchmark over');
  }
}

/** Claude only: a message sent while a tool runs, until the model's request carries it. */
async function steerTimes(rig: AcpRig) {
  const long = rig.shell('echo start; sleep 8; echo end');
  const floor = new FloorClient(specOf(rig));
  let floorMs = NaN;
  try {
    await floor.initialize();
    const sid = await floor.newSession(rig.cwd, modeOf(rig));
    const p = floor.prompt(sid, `${long} tag:fs`);
    await sleep(2500);
    const t0 = Date.now();
    await floor.steer(sid, wrapped('steer tag:fsteer'));
    floorMs = (await rig.untilSeen('tag:fsteer')).at - t0;
    await p.done;
  } finally {
    floor.close();
  }
  const s = new AcpSession(rig.launch({ conversationId: 'bench-steer' }));
  try {
    const turn = s.startTurn({ inputs: [{ id: 'rs', text: `${long} tag:rs` }] });
    await sleep(2500);
    const t0 = Date.now();
    await s.steer({ id: 'rsteer', text: 'steer tag:rsteer' });
    const rudderMs = (await rig.untilSeen('tag:rsteer')).at - t0;
    await turn.result;
    return { floor: floorMs, rudder: rudderMs };
  } finally {
    await s.stop('benchmark over');
  }
}

/** PSS of one process with 1 then 3 sessions (one turn each), against 3 processes of one session. */
async function memory(rig: AcpRig) {
  const spec = specOf(rig);
  const one = new FloorClient(spec);
  const many: FloorClient[] = [];
  try {
    await one.initialize();
    const turn = async (c: FloorClient, n: number) => {
      const sid = await c.newSession(rig.cwd, modeOf(rig));
      await c.prompt(sid, `mem tag:m${n}`).done;
    };
    await turn(one, 0);
    await sleep(1000);
    const oneSession = treePss([one.child.pid!]);
    await turn(one, 1);
    await turn(one, 2);
    await sleep(1000);
    const threeSessions = treePss([one.child.pid!]);
    for (let i = 0; i < 3; i++) {
      const c = new FloorClient(spec);
      many.push(c);
      await c.initialize();
      await turn(c, 10 + i);
    }
    await sleep(1000);
    const threeProcesses = treePss(many.map((c) => c.child.pid!));
    return { oneSession, threeSessions, threeProcesses };
  } finally {
    one.close();
    for (const c of many) c.close();
  }
}

/** Rudder's side: 3 conversations of one directory on a shared process (AcpProcesses), one turn each. */
async function rudderPooled(rig: AcpRig): Promise<number> {
  const processes = new AcpProcesses({ logger: silentLogger() });
  const sessions = [0, 1, 2].map((n) => new AcpSession(rig.launch({ conversationId: `pool${n}`, processes })));
  try {
    for (const [n, s] of sessions.entries()) await s.startTurn({ inputs: [{ id: `p${n}`, text: 'pooled' }] }).result;
    await sleep(1000);
    return treePss([sessions[0]!.pid()!]);
  } finally {
    await Promise.all(sessions.map((s) => s.stop('benchmark over')));
    await processes.stopAll('benchmark over');
  }
}

async function benchAgent(agent: RigAgent): Promise<void> {
  const rig = await startAcpRig(agent);
  try {
    console.log(`\n${agent}`);
    const f = await floorTimes(rig);
    const r = await rudderTimes(rig);
    line('cold: spawn → first text', f.cold, r.cold);
    line('new session → first text (warm)', f.fresh);
    line(`warm turn → first text (p50 of ${WARM_TURNS})`, f.warm, r.warm);
    if (agent === 'claude') {
      const st = await steerTimes(rig);
      line('steer mid-tool → model sees it', st.floor, st.rudder);
    }
    const m = await memory(rig);
    const perExtraSession = (m.threeSessions - m.oneSession) / 2;
    console.log(
      `  memory (PSS): 1 process × 1 session ${mb(m.oneSession)}, 1 × 3 sessions ${mb(m.threeSessions)} ` +
        `(+${mb(perExtraSession)} a session), 3 processes × 1 ${mb(m.threeProcesses)} ` +
        `(${mb(m.threeProcesses / 3)} each)`,
    );
    console.log(`  memory (PSS), Rudder: 3 conversations on one shared process ${mb(await rudderPooled(rig))}`);
  } finally {
    await rig.close();
  }
}

const asked = process.argv.slice(2).filter((a): a is RigAgent => (RIG_AGENTS as readonly string[]).includes(a));
console.log('ACP agents offline against instant mocks: the floor (SDK only) and Rudder (AcpSession)');
for (const agent of asked.length ? asked : RIG_AGENTS) await benchAgent(agent);
