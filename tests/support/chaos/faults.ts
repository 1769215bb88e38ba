/**
 * The actions of a chaos schedule: ordinary messages, and faults. Each picks its conversation with
 * the run's seeded PRNG and returns the fault it injected (undefined when the moment did not allow
 * it, e.g. no live process to kill). Actions do not wait for turns to end, so several
 * conversations are busy at once and faults land on each other's turns. The seed fixes the
 * schedule; process timing still makes two runs of one seed differ in detail.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { MockReply } from '../mock-anthropic.js';
import { alive, descendantsOf, processesOfRun, procInfo } from '../procs.js';
import type { Violation } from './invariants.js';
import { CHAOS_NODE_TIMING, type ChaosNode, natsPid } from './nodes.js';
import type { Rng } from './random.js';
import type { Accepted, ChaosRig } from './rig.js';

export interface Conv {
  key: string;
  kind: 'web' | 'slow';
  /** The gateway's conversation id. */
  id: string;
  sent: number;
  /** The node its project lives on (with --nodes). */
  node?: string;
}

export interface RunCtx {
  rig: ChaosRig;
  rnd: Rng;
  convs: Conv[];
  /** The next main requests the mock answers with this error, instead of the agent's reply. */
  burst: { remaining: number; reply: () => MockReply } | undefined;
  log(line: string): void;
  /** Violations seen while the run goes on (e.g. processes a restart failed to stop). */
  violations: Violation[];
}

export type Action = (ctx: RunCtx) => Promise<string | undefined>;

let platformSeq = 0;
let faultSeq = 0;

/** A fault for the pass-through CLI: once (the re-run succeeds) unless it poisons every attempt. */
function faultDirective(name: string, poison = false): string {
  return poison ? `[[fault:${name}]]` : `[[fault:${name}:f${process.pid}x${faultSeq++}]]`;
}

/** Sends a tagged message; the tag (conversation and number) lets the checker place every reply. */
export async function send(
  ctx: RunCtx,
  conv: Conv,
  body: string,
): Promise<{ tag: string; accepted: Accepted | undefined }> {
  const tag = `${conv.key}-m${conv.sent++}`;
  const text = `${body} tag:${tag}`;
  const accepted =
    conv.kind === 'web'
      ? await ctx.rig.post(conv.key, text)
      : await ctx.rig.slowPost(conv.key, text, `slow-${process.pid}-${platformSeq++}`);
  ctx.log(
    `${conv.id} <- ${JSON.stringify(text)}: ` +
      (accepted ? `${accepted.disposition} ${accepted.messageId}` : 'not accepted (gateway down)'),
  );
  return { tag, accepted };
}

export async function command(ctx: RunCtx, conv: Conv, text: string): Promise<Accepted | undefined> {
  const accepted =
    conv.kind === 'web'
      ? await ctx.rig.post(conv.key, text)
      : await ctx.rig.slowPost(conv.key, text, `slow-${process.pid}-${platformSeq++}`);
  ctx.log(`${conv.id} <- ${text}: ${accepted ? accepted.disposition : 'not accepted (gateway down)'}`);
  return accepted;
}

/** Waits until the agent sent the API request for a tagged message (its turn is running). */
function turnRunning(ctx: RunCtx, tag: string, timeoutMs = 20_000) {
  return ctx.rig.mock
    .waitFor((r) => !r.side && r.lastUserText.includes(`tag:${tag}`), timeoutMs)
    .catch(() => undefined);
}

/** A conversation with no turn running, when there is one (faults aimed at a turn start one). */
async function idleConv(ctx: RunCtx, filter: (c: Conv) => boolean = () => true): Promise<Conv> {
  const s = await ctx.rig.status();
  const busy = new Set([
    ...(s?.sessions.filter((x) => x.state === 'busy').map((x) => x.conversationId) ?? []),
    ...(s?.queues.map((q) => q.conversationId) ?? []),
  ]);
  const pool = ctx.convs.filter((c) => filter(c) && !busy.has(c.id));
  return ctx.rnd.pick(pool.length ? pool : ctx.convs.filter(filter));
}

const web = (c: Conv) => c.kind === 'web';

function killPid(ctx: RunCtx, pid: number, what: string): boolean {
  try {
    process.kill(pid, 'SIGKILL');
    ctx.log(`kill -9 ${pid} (${what})`);
    return true;
  } catch {
    return false;
  }
}

export const ACTIONS: Record<string, Action> = {
  async message(ctx) {
    await send(ctx, ctx.rnd.pick(ctx.convs), 'hello');
    return undefined;
  },

  async tool(ctx) {
    await send(ctx, ctx.rnd.pick(ctx.convs), '[[bash:sleep 2]] work');
    return undefined;
  },

  async 'kill-claude'(ctx) {
    const conv = await idleConv(ctx);
    const { tag, accepted } = await send(ctx, conv, '[[bash:echo start; sleep 6]] long work');
    if (!accepted || !(await turnRunning(ctx, tag))) return undefined;
    await sleep(ctx.rnd.int(300, 2500));
    const wrapper = await ctx.rig.agentPid(conv.id);
    if (!wrapper) return undefined;
    // The real CLI under the pass-through; the pass-through then dies the same way.
    const claude = ctx.rig.realCli(wrapper) ?? wrapper;
    const tools = descendantsOf(claude);
    if (!killPid(ctx, claude, `claude of ${conv.id} mid-turn, its tool processes: ${tools.join(' ') || 'none'}`))
      return undefined;
    // What the dead CLI was running must not run on: the re-run starts the tool again.
    await sleep(2000);
    for (const pid of tools.filter(alive)) {
      ctx.violations.push({
        kind: 'leaked-process',
        detail:
          `tool process ${pid} (${procInfo(pid)?.cmdline.slice(0, 80)}) of the claude killed ` +
          `in ${conv.id} still runs 2 s later`,
      });
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    return 'kill -9 claude mid-turn';
  },

  async 'kill-gateway'(ctx) {
    const conv = await idleConv(ctx);
    const { tag, accepted } = await send(ctx, conv, '[[bash:sleep 3]] long work');
    if (accepted) await turnRunning(ctx, tag);
    await sleep(ctx.rnd.int(0, 1500));
    await ctx.rig.kill9();
    // Its agent processes outlive it until the restart, which must stop them (on nodes they are the nodes').
    const orphans = ctx.rig.nodes.length ? [] : processesOfRun(ctx.rig.agentHome);
    ctx.log(`kill -9 gateway (${orphans.length} agent processes left running: ${orphans.map((p) => p.pid).join(' ')})`);
    await sleep(ctx.rnd.int(0, 1000));
    await ctx.rig.start();
    ctx.log('gateway restarted');
    await sleep(2000);
    for (const p of orphans.filter((o) => alive(o.pid))) {
      ctx.violations.push({
        kind: 'leaked-process',
        detail:
          `pid ${p.pid} left by the killed gateway is still running 2 s after the ` +
          `restart: ${p.cmdline.slice(0, 160)}`,
      });
    }
    return 'kill -9 gateway mid-turn, restart';
  },

  async 'rate-limit'(ctx) {
    const subscription = ctx.rnd.next() < 0.6;
    const resetsAt = Math.floor(Date.now() / 1000) + ctx.rnd.int(2, 5);
    ctx.burst = {
      remaining: ctx.rnd.int(1, 3),
      reply: () =>
        subscription
          ? { kind: 'error', status: 429, style: 'subscription', resetsAt }
          : { kind: 'error', status: 429, style: 'apikey' },
    };
    ctx.log(
      `429 burst of ${ctx.burst.remaining} (${subscription ? `subscription, resets at ${resetsAt}` : 'no reset time'})`,
    );
    await send(ctx, ctx.rnd.pick(ctx.convs), ctx.rnd.next() < 0.5 ? 'hello' : '[[bash:sleep 1]] work');
    return `429 burst (${subscription ? 'with reset time' : 'no reset time'})`;
  },

  async 'server-error'(ctx) {
    ctx.burst = { remaining: ctx.rnd.int(1, 2), reply: () => ({ kind: 'error', status: 500 }) };
    ctx.log(`500 burst of ${ctx.burst.remaining}`);
    await send(ctx, ctx.rnd.pick(ctx.convs), 'hello');
    return '500 burst';
  },

  async 'steer-broken-pipe'(ctx) {
    const conv = await idleConv(ctx, web);
    const { tag, accepted } = await send(ctx, conv, '[[bash:sleep 3]] long work');
    if (!accepted || !(await turnRunning(ctx, tag))) return undefined;
    await sleep(300);
    const wrapper = await ctx.rig.agentPid(conv.id);
    if (!wrapper) return undefined;
    // The gateway's own child dies, and a steer is written before the gateway has seen the exit.
    ctx.rig.realCli(wrapper);
    if (!killPid(ctx, wrapper, `agent process of ${conv.id}, then a steer`)) return undefined;
    await send(ctx, conv, 'steer into the dead pipe');
    return 'broken pipe on a steer';
  },

  async malformed(ctx) {
    await send(ctx, await idleConv(ctx), `${faultDirective('malformed')} check`);
    return 'malformed frames';
  },

  async 'stderr-flood'(ctx) {
    await send(ctx, await idleConv(ctx), `${faultDirective('stderr-flood')} [[bash:sleep 1]] check`);
    return 'stderr flood';
  },

  async 'cut-output'(ctx) {
    const fault = ctx.rnd.pick(['midframe', 'eof']);
    const poison = ctx.rnd.next() < 0.3;
    await send(ctx, await idleConv(ctx), `${faultDirective(fault, poison)} check`);
    return `${
      fault === 'midframe' ? 'exit in the middle of a frame' : 'EOF without a ' + 'result'
    }${poison ? ' (every attempt)' : ' (once)'}`;
  },

  async 'burst-clear'(ctx) {
    const conv = ctx.rnd.pick(ctx.convs);
    const sends = [];
    for (let i = 0; i < 5; i++) {
      sends.push(send(ctx, conv, ctx.rnd.next() < 0.4 ? '[[bash:sleep 2]] quick' : 'quick'));
      await sleep(40);
    }
    await Promise.all(sends);
    await command(ctx, conv, '/clear');
    return '5 messages in 200 ms, then /clear';
  },

  async stop(ctx) {
    const conv = ctx.rnd.pick(ctx.convs);
    await send(ctx, conv, '[[bash:echo start; sleep 8]] long work');
    await sleep(ctx.rnd.int(0, 3000));
    await command(ctx, conv, ctx.rnd.next() < 0.8 ? '/stop' : 'stop');
    return '/stop at a random moment';
  },

  async 'slow-channel'(ctx) {
    const conv = ctx.rnd.pick(ctx.convs.filter((c) => c.kind === 'slow'));
    for (let i = ctx.rnd.int(2, 3); i > 0; i--) {
      await send(ctx, conv, ctx.rnd.next() < 0.3 ? '[[bash:sleep 1]] work' : 'hello');
      await sleep(ctx.rnd.int(0, 300));
    }
    return 'slow channel sender';
  },

  async retry(ctx) {
    const s = await ctx.rig.status();
    const paused = s?.queues.filter((q) => q.pausedUntil).map((q) => q.conversationId) ?? [];
    const conv = ctx.convs.find((c) => paused.includes(c.id));
    if (conv) await command(ctx, conv, '/retry');
    return undefined;
  },
};

/** A node that runs and is not paused, and a conversation on it (idle when there is one). */
async function nodeAndConv(ctx: RunCtx): Promise<{ node: ChaosNode; conv: Conv } | undefined> {
  const nodes = ctx.rig.nodes.filter((n) => n.running() && !n.paused);
  if (!nodes.length) return undefined;
  const node = ctx.rnd.pick(nodes);
  const on = ctx.convs.filter((c) => c.node === node.name);
  if (!on.length) return undefined;
  return { node, conv: await idleConv(ctx, (c) => c.node === node.name) };
}

export const NODE_ACTIONS: Record<string, Action> = {
  async 'kill-node'(ctx) {
    const picked = await nodeAndConv(ctx);
    if (!picked) return undefined;
    const { node, conv } = picked;
    const { tag, accepted } = await send(ctx, conv, '[[bash:echo start; sleep 6]] long work');
    if (!accepted || !(await turnRunning(ctx, tag))) return undefined;
    await sleep(ctx.rnd.int(300, 2500));
    const left = descendantsOf(node.pid()!);
    await node.kill9();
    ctx.log(`kill -9 node ${node.name} mid-turn (its agent processes: ${left.join(' ') || 'none'})`);
    await sleep(ctx.rnd.int(0, 2000));
    await node.start(ctx.rig.budget());
    ctx.log(`node ${node.name} restarted`);
    // What the dead node ran is stopped by its restart.
    await sleep(2000);
    for (const pid of left.filter(alive))
      ctx.violations.push({
        kind: 'leaked-process',
        detail:
          `pid ${pid} (${procInfo(pid)?.cmdline.slice(0, 80)}) of the killed node ${node.name} ` +
          'runs 2 s after its restart',
      });
    return 'kill -9 node mid-turn, restart';
  },

  async 'kill-nats'(ctx) {
    const conv = await idleConv(ctx, (c) => c.node !== undefined);
    const { tag, accepted } = await send(ctx, conv, '[[bash:sleep 3]] work');
    if (accepted) await turnRunning(ctx, tag);
    await sleep(ctx.rnd.int(0, 1500));
    const pid = natsPid(ctx.rig.home);
    if (!pid) return undefined;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      return undefined;
    }
    ctx.log(`kill -9 nats-server ${pid}`);
    // Messages sent while it is down or starting again.
    await send(ctx, ctx.rnd.pick(ctx.convs), 'while NATS restarts');
    return 'kill -9 nats-server';
  },

  async 'stop-node'(ctx) {
    const picked = await nodeAndConv(ctx);
    if (!picked) return undefined;
    const { node, conv } = picked;
    if (ctx.rnd.next() < 0.5) await send(ctx, conv, '[[bash:sleep 2]] work');
    await sleep(ctx.rnd.int(0, 1500));
    node.pause();
    ctx.log(`SIGSTOP node ${node.name}`);
    const away = CHAOS_NODE_TIMING.lostAfterSeconds * 1000 + ctx.rnd.int(500, 3000);
    await sleep(away / 2);
    for (let i = ctx.rnd.int(1, 2); i > 0; i--) await send(ctx, conv, 'while the node is away');
    await sleep(away / 2);
    node.resume();
    ctx.log(`SIGCONT node ${node.name} after ${away} ms`);
    return 'SIGSTOP node past the lost threshold, SIGCONT';
  },
};

/** The node and NATS faults, played with --nodes. */
export const NODE_FAULTS = Object.keys(NODE_ACTIONS);

/** Every fault kind; a run plays each once, in a seeded order, between ordinary messages. */
export const FAULTS = [
  'kill-claude',
  'kill-gateway',
  'rate-limit',
  'server-error',
  'steer-broken-pipe',
  'malformed',
  'stderr-flood',
  'cut-output',
  'burst-clear',
  'stop',
  'slow-channel',
];
