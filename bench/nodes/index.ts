/**
 * Agents on a node over loopback NATS, side by side with a local session, in one run:
 *   - a warm turn's first text (the message's arrival at the front's HTTP server to the first text
 *     event written to the page's stream) and a steer (arrival to the write on the agent's stdin),
 *     each on a local session and on a node: the difference is the hop's cost;
 *   - the hop itself: a command handed to the publisher on the front to the node's runner, and an
 *     event handed to the publisher on the node to the front's session (both ends timestamped);
 *   - durable messages per second through the front with 1 and 2 nodes (the in-process fake agent
 *     on each node, so the figure is the front's and the wire's), beside the same front-less load;
 *   - a node process's memory at rest.
 * The real CLI against the mock with no model latency: the hop is measured, not the model.
 */
import { performance } from 'node:perf_hooks';
import { rssOf } from '../../src/ops/proc.js';
import { waitUntil } from '../../tests/support/claude-rig.js';
import { startMockApi } from '../../tests/support/mock-anthropic.js';
import { type BenchContext, benchAgent } from '../context.js';
import { tapHttp, tapRudder } from '../floor/wire-tap.js';
import type { Check, SectionBody } from '../report.js';
import { mb, ms, type Summary, summarize } from '../stats.js';
import { frontTaps, startBenchCluster, type TapLine } from './cluster.js';
import { throughput } from './throughput.js';

export const HOP_TARGET_MS = 5;
const now = () => performance.timeOrigin + performance.now();

const row = (what: string, s: Summary) => [what, String(s.n), ms(s.p50), ms(s.p95), ms(s.max)];

export async function benchNodes(ctx: BenchContext): Promise<SectionBody> {
  // A warm turn's first text varies by several ms from turn to turn (the CLI's own work): enough turns that
  // the difference of two p50s shows the hop, not that spread.
  const runs = ctx.quick ? 6 : 100;
  const mock = await startMockApi();
  const http = tapHttp();
  const stdin = tapRudder();
  const cl = await startBenchCluster(benchAgent(mock.url), [{ name: 'n0', agent: benchAgent(mock.url) }]);
  const node = cl.nodes[0]!;
  const { front } = cl;
  const port = Number(new URL(front.ep.base).port);
  const convs = { local: 'bench-local', node: 'bench-node' };
  const first: Record<string, number[]> = { local: [], node: [] };
  const steer: Record<string, number[]> = { local: [], node: [] };
  let rssAtRest: number | undefined;
  let rssWarm: number | undefined;
  try {
    const create = async (project: string) =>
      ((await (await front.api('POST', '/api/conversations', { project })).json()) as { id: string }).id;
    convs.local = await create('local');
    convs.node = await create('on-n0');
    const watches = Object.fromEntries(Object.entries(convs).map(([w, id]) => [w, front.watch(id)]));
    await Promise.all(Object.values(watches).map((w) => w.ready));
    const turn = async (where: string, text: string) => {
      const w = watches[where]!;
      const m = await front.post(convs[where as 'local' | 'node'], text);
      await w.waitReply(m.messageId, 'reply', 120_000);
      return m;
    };
    // Warm both: a session and its process, on each side.
    for (const where of ['local', 'node']) await turn(where, `warm up tag:wu-${where}`);
    rssWarm = rssOf(node.child!.pid!);

    for (let i = 0; i < runs; i++) {
      for (const where of i % 2 ? ['node', 'local'] : ['local', 'node']) {
        const id = convs[where as 'local' | 'node'];
        const t0 = now();
        await turn(where, `first text tag:ft${i}`);
        const arrived = http.request(port, new RegExp(`/api/conversations/${id}/messages$`), t0);
        const text = http.frame(port, new RegExp(`/api/conversations/${id}/events`), /event: text/, t0);
        if (arrived !== undefined && text !== undefined) first[where]!.push(text - arrived);
      }
    }
    const steers = ctx.quick ? 3 : 12;
    for (let i = 0; i < steers; i++) {
      for (const where of ['local', 'node']) {
        const id = convs[where as 'local' | 'node'];
        const w = watches[where]!;
        const m = await front.post(id, `work [[bash:sleep 1]] tag:sw${i}-${where}`);
        await w.wait('status', (d) => d.state === 'tool' && d.messageId === m.messageId, 60_000);
        const t0 = now();
        const s = await front.post(id, `steer tag:st${i}-${where}`);
        await w.waitReply(m.messageId, 'reply', 60_000);
        const arrived = http.request(port, new RegExp(`/api/conversations/${id}/messages$`), t0);
        const needle = `tag:st${i}-${where}`;
        let wrote: number | undefined;
        if (where === 'local') wrote = stdin.write(undefined, needle)?.at;
        else {
          await waitUntil(() => node.taps().some((t) => t.k === 'stdin' && t.text?.includes(needle)), 5_000).catch(
            () => 0,
          );
          wrote = node.taps().find((t) => t.k === 'stdin' && t.text?.includes(needle))?.at;
        }
        if (s.disposition === 'steered' && arrived !== undefined && wrote !== undefined)
          steer[where]!.push(wrote - arrived);
      }
    }
    rssAtRest = await cl.restingRss(benchAgent(mock.url));
  } finally {
    await cl.stop();
    await mock.close();
  }
  const hops = hopTimes(frontTaps, node.taps());
  const tp = await throughput(ctx.quick);
  return report({ first, steer, hops, rssAtRest, rssWarm, tp });
}

interface Hops {
  command: number[];
  event: number[];
  /** Each hop in three parts: publish → stored (the server's clock), stored → taken off the consumer, → handled. */
  parts: Record<'command' | 'event', [number[], number[], number[]]>;
}

/** Command: sent on the front → taken by the node's runner; event: published on the node → delivered on the front. */
function hopTimes(front: TapLine[], node: TapLine[]): Hops {
  const at = (taps: TapLine[], k: TapLine['k']) => new Map(taps.filter((t) => t.k === k).map((t) => [t.id!, t]));
  const sent = at(front, 'sent');
  const delivered = at(front, 'delivered');
  const command = node.filter((t) => t.k === 'cmd' && sent.has(t.id!)).map((t) => t.at - sent.get(t.id!)!.at);
  const event = node.filter((t) => t.k === 'evt' && delivered.has(t.id!)).map((t) => delivered.get(t.id!)!.at - t.at);
  const split = (from: Map<string, TapLine>, recv: Map<string, TapLine>, to: Map<string, TapLine>) => {
    const parts: [number[], number[], number[]] = [[], [], []];
    for (const [id, r] of recv) {
      const a = from.get(id);
      const b = to.get(id);
      if (!a || !b || r.stored === undefined) continue;
      parts[0].push(r.stored - a.at);
      parts[1].push(r.at - r.stored);
      parts[2].push(b.at - r.at);
    }
    return parts;
  };
  return {
    command,
    event,
    parts: {
      command: split(sent, at(node, 'recv'), at(node, 'cmd')),
      event: split(at(node, 'evt'), at(front, 'recv'), delivered),
    },
  };
}

function report(r: {
  first: Record<string, number[]>;
  steer: Record<string, number[]>;
  hops: Hops;
  rssAtRest: number | undefined;
  rssWarm: number | undefined;
  tp: Awaited<ReturnType<typeof throughput>>;
}): SectionBody {
  const f = { local: summarize(r.first.local!), node: summarize(r.first.node!) };
  const s = { local: summarize(r.steer.local!), node: summarize(r.steer.node!) };
  const h = { command: summarize(r.hops.command), event: summarize(r.hops.event) };
  const firstCost = f.node.p50 - f.local.p50;
  const steerCost = s.node.p50 - s.local.p50;
  const checks: Check[] = [
    {
      target: `a steer's hop to a node ≤ ${HOP_TARGET_MS} ms p50 (node p50 − local p50)`,
      measured: ms(steerCost),
      pass: steerCost <= HOP_TARGET_MS,
    },
    {
      target: `a warm turn's first text on a node ≤ ${HOP_TARGET_MS} ms p50 over local (a command's hop, an event's)`,
      measured: ms(firstCost),
      pass: firstCost <= HOP_TARGET_MS,
    },
    {
      target: `one hop over loopback NATS (JetStream stored, consumed) ≤ ${HOP_TARGET_MS} ms p50`,
      measured: `command ${ms(h.command.p50)}, event ${ms(h.event.p50)}`,
      pass: h.command.p50 <= HOP_TARGET_MS && h.event.p50 <= HOP_TARGET_MS,
    },
  ];
  return {
    tables: [
      {
        caption: 'From the message at the front to what the agent and the page see, local session vs on a node:',
        head: ['what', 'n', 'p50', 'p95', 'max'],
        rows: [
          row('warm turn, first text: local', f.local),
          row('warm turn, first text: on a node', f.node),
          row('steer to the agent’s stdin: local', s.local),
          row('steer to the agent’s stdin: on a node', s.node),
          row('hop: command, front → node runner', h.command),
          row('hop: event, node publisher → front session', h.event),
        ],
      },
      {
        caption: 'Where a hop goes (stored: the time nats-server gives the message, its clock beside ours):',
        head: ['what', 'n', 'p50', 'p95', 'max'],
        rows: (['command', 'event'] as const).flatMap((k) => {
          const [stored, taken, handled] = r.hops.parts[k].map(summarize) as [Summary, Summary, Summary];
          const to = k === 'command' ? ['the node', 'its runner'] : ['the front', 'the session'];
          return [
            row(`${k}: published → stored by JetStream`, stored),
            row(`${k}: stored → taken off the consumer on ${to[0]}`, taken),
            row(`${k}: taken → at ${to[1]} (${k === 'command' ? 'parsed, remembered' : 'parsed, checked'})`, handled),
          ];
        }),
      },
      {
        caption: 'Durable messages per second through the front (fake agent on each node; a turn there and back each):',
        head: ['setup', 'conversations', 'messages', 'msg/s', 'mean accept → reply'],
        rows: r.tp.rows,
      },
      {
        caption: 'A node process at rest:',
        head: ['what', 'RSS'],
        rows: [
          ['rudder node (node dist/cli/main.js node), joined, no session, 5 s idle', mb(r.rssAtRest)],
          ['the benchmark’s node (tsx, taps) with one warm session; its claude process not counted', mb(r.rssWarm)],
          ['the benchmark’s node (tsx, fake agent) after the throughput load', mb(r.tp.nodeRss)],
        ],
      },
    ],
    checks,
    notes: [
      'The front runs in the benchmark process, the node as `rudder node` in a child process, the embedded ' +
        'nats-server as the front’s child; JetStream stores every command and event (file storage) before it is ' +
        'delivered.',
      'First text: from the HTTP request arriving at the front to the first text event written to the page’s ' +
        'stream. Steer: from the steer’s HTTP request to the agent’s stdin write that carries it (on the node, ' +
        'tapped there). Both ends are stamped with performance.timeOrigin + now() on one machine.',
      'The mock answers at once (no model latency), so the difference between local and node is the hop’s; with ' +
        'a model the same milliseconds sit on top of seconds.',
      'Throughput: closed loops through intake.accept (one message in flight per conversation), each answered by ' +
        'a turn on a node (fake agent, no latency): stored, sent, run, its events sent back, its outcome committed ' +
        'and the reply delivered to the page.',
    ],
    data: {
      first: r.first,
      steer: r.steer,
      hops: r.hops,
      rssAtRest: r.rssAtRest,
      rssWarm: r.rssWarm,
      throughput: r.tp.data,
    },
  };
}
