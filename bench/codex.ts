/**
 * Codex on Rudder (the real pinned codex, the mock Responses API):
 *   - memory per warm conversation (a thread that ran one turn with a command), both ways: every
 *     conversation on one shared app-server, and an app-server per conversation; proportional
 *     memory (PSS, /proc/<pid>/smaps_rollup) of the server processes and their descendants. The
 *     figures decided the process model (server/servers.ts): one server per binary, config and env.
 *   - what a person waits for, on both models: a new conversation's first text (the server cold,
 *     and warm), a warm turn's first text, and a correction sent while a command runs reaching the
 *     model after the command's output.
 * `npx tsx bench/codex.ts [--quick] [--latency off|MS,TPS]` prints the table on its own; `npm run
 * bench -- --only codex` puts it in the report.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CodexSession } from '../src/agents/codex/codex-session.js';
import { CodexServers } from '../src/agents/codex/server/servers.js';
import type { Turn } from '../src/agents/session.js';
import { silentLogger } from '../src/ops/logger.js';
import { codexHome, codexLaunch } from '../tests/support/codex-rig.js';
import { type MockResponses, startMockResponses } from '../tests/support/mock-responses.js';
import { type BenchContext, latencyFromArgs } from './context.js';
import type { Check, SectionBody, Table } from './report.js';
import { mb, ms, sleep, summarize } from './stats.js';

function pssOf(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let kids: number[] = [];
    try {
      kids = fs
        .readdirSync(`/proc/${p}/task`)
        .flatMap((t) =>
          fs.readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
        );
    } catch {
      return;
    }
    for (const k of kids) out.push(k), walk(k);
  };
  walk(pid);
  return out;
}

const treePss = (pids: number[]) =>
  [...new Set(pids.flatMap((p) => [p, ...descendants(p)]))].reduce((n, p) => n + pssOf(p), 0);

/** Resolves when the turn's first streamed text arrives (ms after `t0`). */
function firstText(turn: Turn, t0: number): Promise<number> {
  return new Promise((resolve) => {
    const off = turn.onEvent((e) => {
      if (e.type !== 'text-delta') return;
      off();
      resolve(Date.now() - t0);
    });
  });
}

interface Mode {
  name: 'shared' | 'per conversation';
  sessions: CodexSession[];
  pools: CodexServers[];
}

function newSession(mock: MockResponses, mode: Mode, home: string, i: number): CodexSession {
  // Shared: one pool and one CODEX_HOME for all (one server); per conversation: a pool (a server) each.
  const servers = mode.name === 'shared' ? mode.pools[0]! : new CodexServers({ logger: silentLogger() });
  if (mode.name !== 'shared') mode.pools.push(servers);
  const s = new CodexSession(codexLaunch({ mockUrl: mock.url, servers, codexHome: home, conversationId: `b${i}` }));
  mode.sessions.push(s);
  return s;
}

async function warmMemory(mock: MockResponses, name: Mode['name'], max: number) {
  const mode: Mode = { name, sessions: [], pools: [new CodexServers({ logger: silentLogger() })] };
  const home = codexHome().codexHome;
  const rows: Array<{ n: number; pss: number; servers: number }> = [];
  try {
    for (let n = 1; n <= max; n++) {
      const s = newSession(mock, mode, home, n);
      await s.startTurn({ inputs: [{ id: `w${n}`, text: 'warm up [[exec:echo hi]] tag:w' }] }).result;
      await sleep(1000);
      const pids = [...new Set(mode.sessions.map((x) => x.pid()!))];
      rows.push({ n, pss: treePss(pids), servers: pids.length });
      process.stdout.write(
        `  ${name}: ${n} warm conversation(s) on ${pids.length} server(s): ${mb(rows.at(-1)!.pss)}\n`,
      );
    }
  } finally {
    await Promise.allSettled(mode.sessions.map((s) => s.stop('benchmark over')));
    await Promise.allSettled(mode.pools.map((p) => p.stopAll('benchmark over')));
  }
  const first = rows[0]!;
  const last = rows.at(-1)!;
  return { rows, first: first.pss, marginal: rows.length > 1 ? (last.pss - first.pss) / (rows.length - 1) : first.pss };
}

async function waits(mock: MockResponses, name: Mode['name'], runs: number) {
  const mode: Mode = { name, sessions: [], pools: [new CodexServers({ logger: silentLogger() })] };
  const home = codexHome().codexHome;
  const cold: number[] = [];
  const fresh: number[] = [];
  const warm: number[] = [];
  const steer: number[] = [];
  const tag = name === 'shared' ? 'sh' : 'pc';
  try {
    for (let i = 0; i < runs; i++) {
      // A new conversation: on a shared server only the first one finds it cold.
      const s = newSession(mock, mode, home, i);
      let t0 = Date.now();
      const turn = s.startTurn({ inputs: [{ id: `n${i}`, text: `hello tag:n${i}` }] });
      (i === 0 || name !== 'shared' ? cold : fresh).push(await firstText(turn, t0));
      await turn.result;
      t0 = Date.now();
      const next = s.startTurn({ inputs: [{ id: `m${i}`, text: `again tag:m${i}` }] });
      warm.push(await firstText(next, t0));
      await next.result;
      // A correction while a command runs: from the command's end to the request that carries it.
      const work = s.startTurn({ inputs: [{ id: `c${i}`, text: `work [[exec:sleep 1; echo done]] tag:c${i}` }] });
      let commandEnded = 0;
      work.onEvent((e) => {
        if (e.type === 'tool-result') commandEnded = Date.now();
      });
      await new Promise<void>((r) => work.onEvent((e) => e.type === 'tool-use' && r()));
      await s.steer({ id: `s${i}`, text: `correction ${tag}-${i}-end` });
      await work.result;
      const req = mock.requests.find((q) => q.userTexts.some((t) => t.includes(`correction ${tag}-${i}-end`)))!;
      steer.push(req.at - commandEnded);
    }
  } finally {
    await Promise.allSettled(mode.sessions.map((s) => s.stop('benchmark over')));
    await Promise.allSettled(mode.pools.map((p) => p.stopAll('benchmark over')));
  }
  return { cold: summarize(cold), fresh: summarize(fresh), warm: summarize(warm), steer: summarize(steer) };
}

export async function benchCodex(ctx: BenchContext): Promise<SectionBody> {
  const max = ctx.quick ? 3 : 6;
  const runs = ctx.quick ? 3 : 8;
  const mock = await startMockResponses({ latency: ctx.latency });
  try {
    const shared = await warmMemory(mock, 'shared', max);
    const each = await warmMemory(mock, 'per conversation', max);
    const wShared = await waits(mock, 'shared', runs);
    const wEach = await waits(mock, 'per conversation', runs);
    const memory: Table = {
      caption:
        'PSS of the app-server processes and their descendants after n warm conversations (1 turn with a command ' +
        'each)',
      head: ['n', 'shared server', 'server per conversation'],
      rows: shared.rows.map((r, i) => [String(r.n), mb(r.pss), mb(each.rows[i]?.pss)]),
    };
    const perWarm: Table = {
      caption: 'Memory a further warm conversation costs',
      head: ['model', 'first conversation', 'each further one', `per conversation at n=${max}`],
      rows: [
        ['shared server', mb(shared.first), mb(shared.marginal), mb(shared.rows.at(-1)!.pss / max)],
        ['server per conversation', mb(each.first), mb(each.marginal), mb(each.rows.at(-1)!.pss / max)],
      ],
    };
    const line = (label: string, a: { p50: number; p95: number }, b: { p50: number; p95: number }) => [
      label,
      `${ms(a.p50)} / ${ms(a.p95)}`,
      `${ms(b.p50)} / ${ms(b.p95)}`,
    ];
    const latencyText = ctx.latency ? `${ctx.latency.firstTokenMs} ms first token` : 'off';
    const timing: Table = {
      caption: `What a person waits for (p50 / p95 over ${runs} runs; mock latency ${latencyText})`,
      head: ['', 'shared server', 'server per conversation'],
      rows: [
        line('new conversation, server cold: first text', wShared.cold, wEach.cold),
        [
          'new conversation, server warm: first text',
          `${ms(wShared.fresh.p50)} / ${ms(wShared.fresh.p95)}`,
          'n/a (each starts its own)',
        ],
        line('warm turn: first text', wShared.warm, wEach.warm),
        line("correction sent mid-command: command's end → request with it", wShared.steer, wEach.steer),
      ],
    };
    const checks: Check[] = [
      {
        target: 'one shared app-server costs less per further warm conversation than a server each',
        measured: `${mb(shared.marginal)} shared against ${mb(each.marginal)} per server`,
        pass: shared.marginal < each.marginal,
        why: 'This is why server/servers.ts shares one app-server per binary, config and environment.',
      },
      {
        target: "a correction sent mid-command reaches the model ≤ 100 ms after the command's end (p95, shared)",
        measured: ms(wShared.steer.p95),
        pass: wShared.steer.p95 <= 100,
      },
    ];
    return {
      tables: [memory, perWarm, timing],
      checks,
      notes: [
        'A conversation on a shared server is a thread in it: about the memory of its history, plus a shell while a ' +
          'command runs. A server of its own adds the whole process each time (PSS shares the binary between servers).',
        'Timings run against the mock with the latency given (--latency); with "off" they are the overhead of Rudder ' +
          'and codex alone.',
      ],
      data: { shared, each, waits: { shared: wShared, each: wEach } },
    };
  } finally {
    await mock.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const body = await benchCodex({ quick: argv.includes('--quick'), latency: latencyFromArgs(argv) });
  for (const t of body.tables) {
    process.stdout.write(`\n${t.caption ?? ''}\n${t.head.join(' | ')}\n`);
    for (const r of t.rows) process.stdout.write(`${r.join(' | ')}\n`);
  }
  for (const c of body.checks) process.stdout.write(`\n${c.pass ? 'PASS' : 'FAIL'} ${c.target}: ${c.measured}`);
  process.stdout.write('\n');
  process.exit(0);
}
