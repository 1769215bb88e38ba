/**
 * One seeded chaos run: a gateway child on the real CLI (behind the fault-injecting pass-through)
 * and the mock Messages API, four conversations (three on the web API, one on the slow channel),
 * each chosen fault kind (all by default) once in a seeded order with ordinary messages between,
 * and, all along, a schedule firing every 5 s into c1 and webhook deliveries (some redelivered) into
 * c2 (jobs.ts); then: pause the schedule, let everything settle (releasing rate-limit holds with
 * /retry), stop the gateway, and check the invariants (invariants.ts, job-invariants.ts).
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { OPEN_STATES } from '../../../src/store/types.js';
import { startMockApi } from '../mock-anthropic.js';
import { freePort } from '../nodes-rig.js';
import { alive, processesOfRun } from '../procs.js';
import { ACTIONS, type Conv, FAULTS, NODE_ACTIONS, NODE_FAULTS, type RunCtx } from './faults.js';
import { checkModelInputs, checkStore, trackedProcesses, type Violation } from './invariants.js';
import { checkDeliveries, checkSlots } from './job-invariants.js';
import { HookSender, TICK } from './jobs.js';
import { natsPid } from './nodes.js';
import { Rng } from './random.js';
import { ChaosRig } from './rig.js';
import { SLOW_CHANNEL } from './slow-channel.js';

export interface RunOptions {
  seed: number;
  /** The fault kinds this run may play (every kind in FAULTS by default). */
  kinds?: string[];
  /** How many of them it plays (all by default), in a seeded order. */
  faults?: number;
  /** Ordinary messages between two faults, at most. */
  filler?: number;
  verbose?: boolean;
  /** Keep the temp dirs of a run even when it passed. */
  keep?: boolean;
  /** Agents on this many `rudder node` processes behind the gateway (0: it runs them itself). */
  nodes?: number;
}

export interface RunReport {
  seed: number;
  /** What each injected fault did, in order; a fault with no moment for it is left out. */
  faults: string[];
  /** The kind (a FAULTS entry) of each injected fault, in the same order. */
  kinds: string[];
  messages: number;
  violations: Violation[];
  states: Record<string, number>;
  durationMs: number;
  timeline: string[];
  home: string;
}

const SETTLE_MS = 150_000;
/** Status calls in a row (a second apart) the gateway may leave unanswered before it counts as gone. */
const STATUS_TRIES = 10;

async function settle(ctx: RunCtx): Promise<string | undefined> {
  const { rig } = ctx;
  ctx.burst = undefined;
  const end = Date.now() + SETTLE_MS;
  let calm = 0;
  let lastRetry = 0;
  let last = '';
  let unanswered = 0;
  while (Date.now() < end) {
    const s = await rig.status();
    if (!s) {
      // One request lost on a loaded machine is not a gateway gone: it must stay silent for a while, or be dead.
      ctx.log(`status API: no answer (${rig.statusError})`);
      if (!rig.running() || ++unanswered >= STATUS_TRIES)
        return `the gateway stopped answering its status API (${unanswered} tries): ${rig.statusError}`;
      await sleep(1000);
      continue;
    }
    unanswered = 0;
    const open = OPEN_STATES.reduce((n, st) => n + (s.messages[st] ?? 0), 0);
    const paused = s.queues.filter((q) => q.pausedUntil).map((q) => q.conversationId);
    const busy = s.sessions.filter((x) => x.state === 'busy').length;
    last = `open ${open}, owed ${s.owedReplies}, busy ${busy}, queues ${JSON.stringify(s.queues)}`;
    // Rate-limit holds without a reset time last 15 minutes: release them as a person would.
    if (paused.length && Date.now() - lastRetry > 3000) {
      lastRetry = Date.now();
      for (const id of paused) {
        const conv = ctx.convs.find((c) => c.id === id);
        if (conv)
          await (conv.kind === 'web'
            ? rig.post(conv.key, '/retry')
            : rig.slowPost(conv.key, '/retry', `retry-${Date.now()}-${id}`));
      }
    }
    calm = open === 0 && s.owedReplies === 0 && busy === 0 && s.queues.length === 0 ? calm + 1 : 0;
    if (calm >= 3) return undefined;
    await sleep(500);
  }
  return `not settled after ${SETTLE_MS / 1000} s: ${last}`;
}

/** Pauses the schedule (so the run can settle); the time before which every slot must be accounted for. */
async function pauseTick(ctx: RunCtx): Promise<number> {
  const end = Date.now() + ctx.rig.budget();
  while (Date.now() < end) {
    const at = Date.now();
    if (await ctx.rig.post('c1', `/schedule pause ${TICK}`)) {
      ctx.log(`schedule ${TICK} paused`);
      // A slot just before the pause may still be on its way in.
      return at - 2000;
    }
    await sleep(1000);
  }
  ctx.violations.push({ kind: 'gateway', detail: `the schedule ${TICK} could not be paused` });
  return 0;
}

export async function runChaos(opts: RunOptions): Promise<RunReport> {
  const started = Date.now();
  const rnd = new Rng(opts.seed);
  const timeline: string[] = [];
  const log = (line: string) => {
    const entry = `${((Date.now() - started) / 1000).toFixed(2).padStart(7)}s ${line}`;
    timeline.push(entry);
    if (opts.verbose) process.stdout.write(`    ${entry}\n`);
  };
  const mock = await startMockApi();
  const nodeCount = opts.nodes ?? 0;
  const rig = new ChaosRig(mock, { nodes: nodeCount, natsPort: nodeCount ? await freePort() : undefined, jobs: true });
  // With nodes, the conversations are spread over them (c2 on the second; the rest on the default, the first).
  const on = (i: number) => (nodeCount ? { node: rig.nodes[Math.min(i, nodeCount - 1)]!.name } : {});
  const convs: Conv[] = [
    { key: 'c1', kind: 'web', id: 'web:c1', sent: 0, ...on(0) },
    { key: 'c2', kind: 'web', id: 'web:c2', sent: 0, ...on(1) },
    { key: 'c3', kind: 'web', id: 'web:c3', sent: 0, ...on(0) },
    { key: 's1', kind: 'slow', id: `${SLOW_CHANNEL}:s1`, sent: 0, ...on(0) },
  ];
  const violations: Violation[] = [];
  const ctx: RunCtx = { rig, rnd, convs, burst: undefined, log, violations };
  mock.setScript((req) => {
    if (req.side || !ctx.burst || ctx.burst.remaining <= 0) return undefined;
    ctx.burst.remaining--;
    return ctx.burst.reply();
  });

  const all = nodeCount ? [...FAULTS, ...NODE_FAULTS] : FAULTS;
  const actions = { ...ACTIONS, ...NODE_ACTIONS };
  const unknown = (opts.kinds ?? []).filter((k) => !all.includes(k));
  if (unknown.length) throw new Error(`unknown fault kind(s) ${unknown.join(', ')}: the kinds are ${all.join(', ')}`);
  const order = [...(opts.kinds ?? all)].sort(() => rnd.next() - 0.5).slice(0, opts.faults);
  const injected: string[] = [];
  const injectedKinds: string[] = [];
  let states: Record<string, number> = {};
  const hooks = new HookSender(rig, opts.seed, log);
  // The schedule's slots up to here must be accounted for (it is paused before the run settles).
  let slotsUntil = 0;
  try {
    await rig.start();
    if (nodeCount) {
      await rig.startNodes();
      for (const c of convs.filter((x) => x.node && x.node !== rig.nodes[0]!.name))
        await rig.post(c.key, `/project ${rig.nodes.find((n) => n.name === c.node)!.project}`);
    }
    hooks.start();
    for (const kind of order) {
      for (let i = rnd.int(0, opts.filler ?? 2); i > 0; i--) {
        await ACTIONS[rnd.weighted({ message: 3, tool: 2, retry: 1 })]!(ctx);
        await sleep(rnd.int(0, 600));
      }
      const fault = await actions[kind]!(ctx);
      if (fault) {
        injected.push(fault);
        injectedKinds.push(kind);
      }
      log(fault ? `fault: ${fault}` : `fault ${kind} skipped (no moment for it)`);
      await sleep(rnd.int(200, 1500));
    }
    await hooks.stop();
    await hooks.drain(rig.budget());
    slotsUntil = await pauseTick(ctx);
    log('settling');
    const unsettled = await settle(ctx);
    if (unsettled) violations.push({ kind: 'lost', detail: unsettled });
    log('stopping the gateway');
    const nats = natsPid(rig.home);
    if (!(await rig.stop()))
      violations.push({ kind: 'gateway', detail: 'the gateway did not stop within 30 s of SIGTERM' });
    if (nats && alive(nats))
      violations.push({ kind: 'leaked-process', detail: `the embedded nats-server ${nats} outlived the gateway` });
    if (!(await rig.stopNodes()))
      violations.push({ kind: 'gateway', detail: 'a node did not stop within 30 s of SIGTERM' });
  } catch (err) {
    violations.push({ kind: 'gateway', detail: `the run broke: ${(err as Error).stack ?? err}` });
    await hooks.stop();
    await rig.stop();
    await rig.stopNodes();
  } finally {
    await mock.close();
  }

  // Nothing of this run may outlive the gateway: no claude, no pass-through, no tool process.
  await sleep(500);
  const left = processesOfRun(rig.agentHome);
  for (const p of left) {
    violations.push({
      kind: 'leaked-process',
      detail: `pid ${p.pid} (parent ${p.ppid}) outlived the gateway: ${p.cmdline.slice(0, 160)}`,
    });
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  for (const pid of rig.seenPids)
    if (alive(pid) && !left.some((p) => p.pid === pid))
      violations.push({ kind: 'leaked-process', detail: `agent pid ${pid} seen during the run is still alive` });
  for (const pid of trackedProcesses(rig.dbFile()))
    if (alive(pid)) violations.push({ kind: 'leaked-process', detail: `agent_processes still lists live pid ${pid}` });
  for (const out of rig.output)
    if (/uncaught exception/i.test(out))
      violations.push({
        kind: 'gateway',
        detail: `the gateway crashed: ${out.slice(out.search(/uncaught exception/i), 600)}`,
      });

  try {
    const checked = checkStore(rig.dbFile(), rig.accepted, rig.slowLog);
    violations.push(...checked.violations, ...checkModelInputs(rig.dbFile(), mock.requests));
    violations.push(...checkDeliveries(rig.dbFile(), hooks.deliveries, mock.requests));
    if (slotsUntil) violations.push(...checkSlots(rig.dbFile(), slotsUntil));
    states = checked.states;
  } catch (err) {
    violations.push({ kind: 'integrity', detail: `the store could not be read: ${(err as Error).message}` });
  }
  rig.done();
  if (violations.length === 0 && !opts.keep) rig.cleanup();
  return {
    seed: opts.seed,
    faults: injected,
    kinds: injectedKinds,
    messages: Object.values(states).reduce((a, b) => a + b, 0),
    violations,
    states,
    durationMs: Date.now() - started,
    timeline,
    home: rig.home,
  };
}
