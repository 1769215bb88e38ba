/**
 * What a person waits for. Two parts, on the real CLI and the mock with its latency profile:
 *
 * 1. In a conversation whose process is warm, from sending a message until each thing the person
 *    can see: the acknowledgement, a sign of progress, the first text of the answer; on the web
 *    page (its event stream) and on each chat channel (the calls the real channel library makes
 *    to the fake platform API). The message asks for one tool call, then an answer, as most
 *    requests to a coding agent do.
 * 2. A new conversation's first reply, whose process has to start (cold): without and with
 *    steering.spareProcess (a process started ahead), samples alternating between two gateways.
 */
import { silentLogger } from '../../src/ops/logger.js';
import { tempDir } from '../../tests/support/claude-rig.js';
import { startInProcess } from '../../tests/support/gateway-rig.js';
import { type MockReply, type MockRequest, startMockApi } from '../../tests/support/mock-anthropic.js';
import { type BenchContext, benchAgent } from '../context.js';
import { now, tapHttp, tapRudder } from '../floor/wire-tap.js';
import { type Phases, phases, phaseTable } from '../floor.js';
import type { Check, SectionBody, Table } from '../report.js';
import { ms, sleep, summarize } from '../stats.js';
import { TimedEvents } from '../web-client.js';
import { startChatFakes } from './chat-surfaces.js';
import { type Surface, webSurface } from './surfaces.js';

/** `wait-run:TAG`: one Bash step, then the answer `done TAG`. */
function script(req: MockRequest): MockReply | undefined {
  if (req.side) return undefined;
  const users: any[] = (req.body.messages ?? []).filter((m: any) => m?.role === 'user');
  const text = (m: any) => (typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? ''));
  let start = -1;
  for (const [i, m] of users.entries()) if (text(m).includes('wait-run:')) start = i;
  if (start < 0) return undefined;
  const tag = /wait-run:([\w-]+)/.exec(text(users[start]))![1]!;
  const afterTool = users
    .slice(start)
    .some((m) => Array.isArray(m?.content) && m.content.some((b: any) => b?.type === 'tool_result'));
  return afterTool
    ? { kind: 'text', text: `done ${tag}` }
    : { kind: 'tool', name: 'Bash', input: { command: `echo looking into ${tag}`, description: 'look' } };
}

/** The gap between cold samples: the spare is started 3 s after it was taken, and needs its own start-up. */
const COLD_GAP_MS = 5000;

export async function benchWaits(ctx: BenchContext): Promise<SectionBody> {
  const rounds = ctx.quick ? 3 : 20;
  const coldRuns = ctx.quick ? 3 : 8;
  const mock = await startMockApi({ script, latency: ctx.latency });
  const fakes = await startChatFakes();
  const home = tempDir('bench-rhome');
  const gw = await startInProcess(
    { agent: benchAgent(mock.url), steering: { maxLive: 8 }, channels: fakes.config },
    { home, extraChannels: [fakes.whatsappChannel(home, silentLogger())] },
  );
  const surfaces: Surface[] = [];
  const figures = new Map<string, { surface: string; probe: string; kind: string; values: number[] }>();
  try {
    await fakes.connect();
    surfaces.push(await webSurface(gw.ep, 'waits'), ...fakes.surfaces());
    const one = async (s: Surface, tag: string) => {
      const sent = await s.send(`please have a look wait-run:${tag}`);
      const seen = await Promise.all(s.probes.map((p) => p.seen(sent, tag, 120_000)));
      // The answer is out; let the turn's end settle before the next message.
      await sleep(300);
      return seen.map((t) => t - sent.at);
    };
    for (const s of surfaces) await one(s, `${s.name}-warm`);
    for (let r = 0; r < rounds; r++) {
      for (const s of surfaces) {
        const offsets = await one(s, `${s.name}-${r}`);
        s.probes.forEach((p, i) => {
          const key = `${s.name}/${p.name}`;
          const f = figures.get(key) ?? { surface: s.name, probe: p.name, kind: p.kind, values: [] };
          f.values.push(offsets[i]!);
          figures.set(key, f);
        });
      }
    }
  } finally {
    for (const s of surfaces) s.close?.();
    await gw.stop();
    await fakes.close();
  }
  process.stdout.write(
    `  surfaces: ${[...figures.values()]
      .filter((f) => f.kind === 'ack')
      .map((f) => `${f.surface} ack p50 ${ms(summarize(f.values).p50)}`)
      .join(', ')}\n`,
  );

  // A new conversation's first reply, without and with a spare process, alternating.
  const taps = tapRudder();
  const httpTap = tapHttp();
  const off = await startInProcess({ agent: benchAgent(mock.url), steering: { maxLive: 8 } });
  const on = await startInProcess({ agent: benchAgent(mock.url), steering: { maxLive: 8, spareProcess: true } });
  const cold = { off: [] as Array<Phases & { reply: number }>, on: [] as Array<Phases & { reply: number }> };
  try {
    const sample = async (g: typeof off, name: 'off' | 'on', i: number) => {
      const conv = `cold-${name}-${i}`;
      const w = new TimedEvents(g.ep, conv);
      await w.ready;
      const sentWall = Date.now();
      const sent = now();
      const { messageId } = await g.post(conv, `hello tag:cold${name}${i}`);
      const text = await w.next('text', messageId);
      const reply = await w.next('reply', messageId);
      w.close();
      // Any process: a spare was tapped under its own label before this conversation took it.
      const p = phases(taps, mock, undefined, `tag:cold${name}${i}`, sent, sentWall, text.at, {
        tap: httpTap,
        port: g.gw.web!.address().port,
        conv,
      });
      cold[name].push({ ...p, reply: reply.at - sent });
      await g.gw.services.pool.release(`web:${conv}`, 'benchmark sample over');
    };
    for (let i = 0; i < coldRuns + 1; i++) {
      // The first sample of each primes (with the flag on, the first new conversation starts the first spare).
      await sample(off, 'off', i);
      await sample(on, 'on', i);
      await sleep(COLD_GAP_MS);
    }
    cold.off.shift();
    cold.on.shift();
    // A conversation that took the spare did not spawn after its message arrived.
  } finally {
    await Promise.all([off.stop(), on.stop()]);
    await mock.close();
  }

  const spareTaken = cold.on.filter((p) => !Number.isFinite(p.toSpawn)).length;
  const byKind = (kind: string) => [...figures.values()].filter((f) => f.kind === kind);
  const table: Table = {
    caption:
      `A warm conversation, ${rounds} messages per surface (one tool call, then the answer): from ` +
      `sending the message to what the person sees there (p50 / p95):`,
    head: ['surface', 'what is visible', 'kind', 'p50', 'p95', 'max'],
    rows: [...figures.values()].map((f) => {
      const s = summarize(f.values);
      return [f.surface, f.probe, f.kind, ms(s.p50), ms(s.p95), ms(s.max)];
    }),
  };
  const coldSum = (name: 'off' | 'on', k: 'total' | 'reply') => summarize(cold[name].map((p) => p[k]));
  const saved = coldSum('off', 'total').p50 - coldSum('on', 'total').p50;
  const ackWorst = Math.max(...byKind('ack').map((f) => summarize(f.values).p95));
  const checks: Check[] = [
    {
      target: "steering.spareProcess: a spare pre-started process cuts a new conversation's first reply",
      measured:
        `first text p50 ${ms(coldSum('on', 'total').p50)} with ` +
        `it, ${ms(coldSum('off', 'total').p50)} without ` +
        `(${saved >= 0 ? '−' : '+'}${ms(Math.abs(saved))}); ${spareTaken} of ${cold.on.length} new ` +
        `conversations took a spare (the first, which started the first spare, is left out)`,
      pass: saved > 0,
      why:
        `The saving is the CLI's start-up before it reads its first message (the "stdin → the mock's ` +
        `request" phase below: ${ms(summarize(cold.off.map((p) => p.toRequest).filter(Number.isFinite)).p50)} ` +
        `on a fresh process, ${ms(summarize(cold.on.map((p) => p.toRequest).filter(Number.isFinite)).p50)} ` +
        'on a spare). The flag is off by default: the spare is one more idle claude process (see the memory ' +
        'section for its size), and it serves only a new session with the default settings of its project.',
    },
  ];
  return {
    tables: [
      table,
      {
        caption:
          `A new conversation's first reply on the web (its process started for ` +
          `it), ${coldRuns} samples each, alternating between a gateway without and one with ` +
          `steering.spareProcess (${COLD_GAP_MS / 1000} s apart, so the spare has started):`,
        head: ['', 'first text p50', 'p95', 'reply p50', 'p95'],
        rows: (['off', 'on'] as const).map((n) => [
          n === 'off' ? 'spareProcess: false (default)' : 'spareProcess: true',
          ms(coldSum(n, 'total').p50),
          ms(coldSum(n, 'total').p95),
          ms(coldSum(n, 'reply').p50),
          ms(coldSum(n, 'reply').p95),
        ]),
      },
      phaseTable(
        'The same by phase:',
        { name: 'without a spare', samples: cold.off },
        { name: 'with a spare', samples: cold.on },
      ),
    ],
    checks,
    notes: [
      'What "visible" means here. Web: the event arrives at a client of the event stream (ack = the `ack` ' +
        'event, kind received; progress = the `turn` event when the turn starts, then the first `step` or ' +
        'streamed `text` event; text = the first streamed `text` delta). Chat channels: the call reaches the ' +
        "fake platform API (ack = the 👀 reaction, or Slack's eyes; progress = the typing indicator, which " +
        'Slack does not offer bots; text = the first message with the answer, which chat channels send ' +
        "whole, not streamed). The platform's own delivery to the phone comes on top.",
      `The slowest acknowledgement at p95 was ${ms(ackWorst)}: the acknowledgement is committed with the ` +
        `message and sent before the turn starts, so it does not wait for the model.`,
      'A progress card (chat channels) is one more probe in bench/waits/chat-surfaces.ts once it exists.',
    ],
    data: { rounds, coldRuns, figures: [...figures.values()], cold, spareTaken },
  };
}
