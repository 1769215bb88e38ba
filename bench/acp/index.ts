/**
 * ACP agents, the floor against Rudder (`npm run bench -- --only acp`; `--quick` runs Claude's adapter and Gemini
 * only). Each agent runs offline against its mock (tests/support/acp-rig.ts), the mock answering at once, so the
 * figures are the agent's and the client's own time:
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
import type { BenchContext } from '../context.js';
import type { Check, SectionBody } from '../report.js';
import { mb, ms, sleep, summarize } from '../stats.js';
import { type AgentSpec, FloorClient } from './floor-client.js';

const WARM_TURNS = 5;
/** What Rudder may add to the floor's time (the target). */
const TARGET_MS = 10;
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
async function memoryOf(rig: AcpRig) {
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

interface AgentFigures {
  agent: RigAgent;
  floor: { cold: number; warm: number; fresh: number };
  rudder: { cold: number; warm: number };
  steer?: { floor: number; rudder: number };
  memory: { oneSession: number; threeSessions: number; threeProcesses: number; rudderPooled: number };
}

async function benchAgent(agent: RigAgent): Promise<AgentFigures> {
  const rig = await startAcpRig(agent);
  try {
    process.stdout.write(`  ${agent}…\n`);
    const floor = await floorTimes(rig);
    const rudder = await rudderTimes(rig);
    const steer = agent === 'claude' ? await steerTimes(rig) : undefined;
    const memory = { ...(await memoryOf(rig)), rudderPooled: await rudderPooled(rig) };
    return { agent, floor, rudder, ...(steer ? { steer } : {}), memory };
  } finally {
    await rig.close();
  }
}

const within = (label: string, floor: number, rudder: number): Check => ({
  target: `${label}: Rudder ≤ floor + ${TARGET_MS} ms`,
  measured: `${ms(rudder)} against ${ms(floor)} (${rudder - floor >= 0 ? '+' : ''}${ms(rudder - floor)})`,
  pass: rudder <= floor + TARGET_MS,
});

/** The section of `npm run bench`: a row per agent and figure, the checks against the floor. */
export async function benchAcp(ctx: BenchContext): Promise<SectionBody> {
  const agents: RigAgent[] = ctx.quick ? ['claude', 'gemini'] : [...RIG_AGENTS];
  const figures: AgentFigures[] = [];
  for (const agent of agents) figures.push(await benchAgent(agent));
  const rows = figures.flatMap((f) => [
    [f.agent, 'cold: spawn → first text', ms(f.floor.cold), ms(f.rudder.cold)],
    [f.agent, 'new session → first text (warm process)', ms(f.floor.fresh), 'n/a'],
    [f.agent, `warm turn → first text (p50 of ${WARM_TURNS})`, ms(f.floor.warm), ms(f.rudder.warm)],
    ...(f.steer ? [[f.agent, 'steer mid-tool → the model sees it', ms(f.steer.floor), ms(f.steer.rudder)]] : []),
  ]);
  const memory = figures.map((f) => [
    f.agent,
    mb(f.memory.oneSession),
    `${mb(f.memory.threeSessions)} (+${mb((f.memory.threeSessions - f.memory.oneSession) / 2)} a session)`,
    `${mb(f.memory.threeProcesses)} (${mb(f.memory.threeProcesses / 3)} each)`,
    mb(f.memory.rudderPooled),
  ]);
  const checks = figures.flatMap((f) => [
    within(`${f.agent} warm turn`, f.floor.warm, f.rudder.warm),
    ...(f.steer ? [within(`${f.agent} steer mid-tool`, f.steer.floor, f.steer.rudder)] : []),
  ]);
  return {
    tables: [
      {
        caption: 'Time to the first text: the floor (the SDK only) and Rudder (AcpSession)',
        head: ['agent', 'figure', 'floor', 'Rudder'],
        rows,
      },
      {
        caption: "Memory (PSS): one process with 1 and 3 sessions, 3 processes, and Rudder's 3 conversations on one",
        head: ['agent', '1 process × 1 session', '1 × 3 sessions', '3 processes × 1', 'Rudder: 3 on one shared'],
        rows: memory,
      },
    ],
    checks,
    notes: [
      "Offline against instant mocks: the figures are the agent's own time and the client's. Rudder's new " +
        'conversation on a warm shared process is a new session; its cold figure starts the process.',
    ],
    data: { figures },
  };
}
