/**
 * Memory at scale.
 *   - The gateway as `npm start` runs it (node dist/cli/main.js start, a child process) with 1,000
 *     and then 10,000 conversations that each had one turn and are now idle. The agent is a
 *     minimal shell stand-in for the CLI (bench/fake-claude.sh), so the figure is the gateway's own.
 *   - N warm claude processes (the real CLI, each after two turns, one with a Bash tool) for
 *     N = 1..8, so the steering.maxLive default can be checked against what they take: resident
 *     memory (RSS, which counts the binary's shared pages once per process) and proportional
 *     memory (PSS, which shares them out), and how much MemAvailable fell.
 *   - A spare process (steering.spareProcess): the CLI started and waiting for its first message.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { streamArgs } from '../src/agents/claude/args.js';
import { AgentProcess } from '../src/agents/claude/process.js';
import { ClaudeStreamSession } from '../src/agents/claude/stream-session.js';
import { call } from '../src/cli/client.js';
import { parseConfig } from '../src/config/load.js';
import { silentLogger } from '../src/ops/logger.js';
import { rssOf } from '../src/ops/proc.js';
import { rigLaunch, waitUntil } from '../tests/support/claude-rig.js';
import { startChild } from '../tests/support/gateway-rig.js';
import { startMockApi } from '../tests/support/mock-anthropic.js';
import { descendants, pssOf } from './codex/pss.js';
import type { BenchContext } from './context.js';
import type { Check, SectionBody } from './report.js';
import { mb, sleep } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FAST_FAKE = path.join(HERE, 'fake-claude.sh');
const TARGET_MB = 150;
const MAX_WARM = 8;

function statusKb(pid: number, field: string): number | undefined {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Proportional set size in bytes (shared pages divided among the processes that map them). */
function memAvailable(): number {
  const m = /MemAvailable:\s+(\d+) kB/.exec(fs.readFileSync('/proc/meminfo', 'utf8'));
  return m ? Number(m[1]) * 1024 : os.freemem();
}

const tree = (pid: number) => [pid, ...descendants(pid)];
const sum = (pids: number[], f: (p: number) => number | undefined) => pids.reduce((n, p) => n + (f(p) ?? 0), 0);

async function gatewayWithIdleConversations(counts: number[]) {
  const gw = await startChild({ agent: { claudeBin: FAST_FAKE } });
  const points: Array<{ conversations: number; rss?: number; heapNote?: string; turnsMs: number }> = [];
  try {
    const pid = gw.child.pid!;
    await sleep(2000);
    const baseline = rssOf(pid);
    let next = 0;
    const t0 = Date.now();
    for (const count of counts) {
      const worker = async () => {
        while (next < count) {
          const i = next++;
          await gw.post(`idle-${i}`, `hello ${i}`);
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      await waitUntil(
        async () => {
          const s = await call<{ messages: Record<string, number>; owedReplies: number }>(gw.ep, 'GET', '/api/status');
          return (s.messages.answered ?? 0) >= count && s.owedReplies === 0;
        },
        1_200_000,
        500,
      );
      const turnsMs = Date.now() - t0;
      // Idle: give the collector a moment, as a gateway between bursts would have.
      await sleep(3000);
      points.push({ conversations: count, rss: rssOf(pid), turnsMs });
      process.stdout.write(
        `  ${count} idle conversations: ${mb(rssOf(pid))} (${(turnsMs / 1000).toFixed(0)} s of turns so far)\n`,
      );
    }
    return { baseline, points, peak: statusKb(pid, 'VmHWM') };
  } finally {
    await gw.stop();
  }
}

async function warmProcesses(ctx: BenchContext, max: number) {
  const mock = await startMockApi({ latency: ctx.latency });
  const sessions: ClaudeStreamSession[] = [];
  const rows: Array<{ n: number; rss: number; pss: number; availableDrop: number; perProcessPss: number }> = [];
  let spare: { rss?: number; pss?: number } = {};
  const available0 = memAvailable();
  try {
    // A spare: started, never spoken to, as steering.spareProcess keeps it.
    const l = rigLaunch({ mockUrl: mock.url, conversationId: 'spare' });
    const proc = AgentProcess.spawn({
      bin: l.bin,
      args: streamArgs(l, undefined),
      cwd: l.cwd,
      env: l.env,
      logger: silentLogger(),
      label: 'spare',
    });
    await sleep(5000);
    spare = { rss: sum(tree(proc.pid), rssOf), pss: sum(tree(proc.pid), pssOf) };
    await proc.kill('measured');
    for (let n = 1; n <= max; n++) {
      const s = new ClaudeStreamSession(rigLaunch({ mockUrl: mock.url, conversationId: `warm-${n}` }));
      sessions.push(s);
      await s.startTurn({ inputs: [{ id: `w${n}a`, text: `turn one [[bash:echo hi]] tag:w${n}` }] }).result;
      await s.startTurn({ inputs: [{ id: `w${n}b`, text: `turn two tag:w${n}` }] }).result;
      await sleep(1000);
      const pids = sessions.flatMap((x) => tree(x.pid()!));
      const rss = sum(pids, rssOf);
      const pss = sum(pids, pssOf);
      rows.push({ n, rss, pss, availableDrop: available0 - memAvailable(), perProcessPss: pss / n });
    }
  } finally {
    await Promise.allSettled(sessions.map((s) => s.stop('benchmark over')));
    await mock.close();
  }
  return { rows, spare, available0 };
}

/**
 * What steering.maxLive is when the config leaves it out: a fixed default, or one per 2 GB of available memory (2..8).
 */
function defaultMaxLive(available: number): { n: number; rule: string } {
  const configured = (parseConfig({}).steering as { maxLive?: number }).maxLive;
  if (typeof configured === 'number') return { n: configured, rule: `${configured}` };
  return { n: Math.min(8, Math.max(2, Math.floor(available / 2e9))), rule: 'one per 2 GB of available memory, 2..8' };
}

export async function benchMemory(ctx: BenchContext): Promise<SectionBody> {
  const counts = ctx.quick ? [100, 400] : [1000, 10_000];
  const gw = await gatewayWithIdleConversations(counts);
  const warm = await warmProcesses(ctx, ctx.quick ? 3 : MAX_WARM);
  const at = (n: number) => gw.points.find((p) => p.conversations === n);
  const first = gw.points[0]!;
  const last = gw.points.at(-1)!;
  const perConv = ((last.rss ?? 0) - (first.rss ?? 0)) / (last.conversations - first.conversations);
  const thousand = (at(1000) ?? first).rss;
  const lastWarm = warm.rows.at(-1)!;
  const marginal = warm.rows.length > 1 ? (lastWarm.pss - warm.rows[0]!.pss) / (warm.rows.length - 1) : lastWarm.pss;
  const d = defaultMaxLive(warm.available0);
  const estimate = (n: number) => warm.rows[0]!.pss + marginal * (n - 1);
  const checks: Check[] = [
    {
      target: `gateway RSS < ${TARGET_MB} MB with 1,000 idle conversations`,
      measured:
        `${mb(thousand)}${at(1000) ? '' : ` (with ${first.conversations}: quick run)`}; ` +
        `with ${last.conversations.toLocaleString('en')}: ${mb(last.rss)}`,
      pass: (thousand ?? Infinity) / 1024 / 1024 < TARGET_MB,
    },
    {
      target:
        `the steering.maxLive default (${d.rule}; ${d.n} here): its warm processes fit in a quarter of ` +
        `the memory available`,
      measured:
        `${d.n} warm processes take ${mb(warm.rows.find((r) => r.n === d.n)?.pss ?? estimate(d.n))} PSS; ` +
        `${mb(warm.available0)} was available; each further one adds ${mb(marginal)}`,
      pass: (warm.rows.find((r) => r.n === d.n)?.pss ?? estimate(d.n)) < warm.available0 / 4,
    },
  ];
  return {
    tables: [
      {
        caption: 'The gateway (node dist/cli/main.js start), its agent the shell stand-in:',
        head: ['what', 'resident memory'],
        rows: [
          ['just started (no conversation yet)', mb(gw.baseline)],
          ...gw.points.map((p) => [
            `${p.conversations.toLocaleString('en')} idle conversations, each after one turn`,
            mb(p.rss),
          ]),
          ['peak (VmHWM) while those turns ran', mb(gw.peak)],
          [
            `per idle conversation, from ${first.conversations.toLocaleString('en')} ` +
              `to ${last.conversations.toLocaleString('en')}`,
            `${(perConv / 1024).toFixed(1)} KB`,
          ],
        ],
      },
      {
        caption: `N warm claude processes (2.1.332, each after two turns), with their children:`,
        head: ['N', 'RSS, all', 'PSS, all', 'PSS per process', 'MemAvailable fell by'],
        rows: [
          [
            'a spare (started, waiting for its first message)',
            mb(warm.spare.rss),
            mb(warm.spare.pss),
            mb(warm.spare.pss),
            '',
          ],
          ...warm.rows.map((r) => [String(r.n), mb(r.rss), mb(r.pss), mb(r.perProcessPss), mb(r.availableDrop)]),
        ],
      },
    ],
    checks,
    notes: [
      `The ${last.conversations.toLocaleString('en')} turns took ${(last.turnsMs / 1000).toFixed(0)} s ` +
        `through the HTTP API with 16 senders; each ran in a stream-json process of the stand-in, and past ` +
        `the warm cap that process exited after the turn, so no process is held for an idle conversation, as ` +
        `in production.`,
      `Each further warm process adds about ${mb(marginal)} PSS; RSS counts the CLI binary's shared pages in ` +
        `every process, so PSS (or the fall of MemAvailable) is what N processes really cost. MemAvailable ` +
        `moves with everything else on the machine too.`,
      'Idle claude processes kept warm are capped (steering.maxLive: by default one per 2 GB of available ' +
        'memory, 2..8) and reaped when idle (steering.idleMinutes), so their memory does not grow with the ' +
        'number of conversations.',
    ],
    data: { gateway: gw, warm },
  };
}
