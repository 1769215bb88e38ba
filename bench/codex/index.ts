/**
 * Codex on Rudder, side by side in one run (sides.ts, scenarios.ts):
 *   - Rudder on Codex (a gateway driven through its HTTP API and event stream) against the floor,
 *     a hand-written app-server client on the same codex binary, config and mock: a correction sent
 *     mid-command (until the model has it), a warm turn's first text, a new conversation's first
 *     text, and memory per warm conversation;
 *   - Rudder on Claude for the same scenarios, so a person can see what each agent costs;
 *   - the process model: memory per warm conversation on one shared app-server against a server
 *     per conversation (process-model.ts), the measurement behind server/servers.ts.
 * Each round runs the three sides one after another (the gateways and the floor client share this
 * process's event loop), in a different order each round, so a busy moment of the machine does not
 * always fall on the same side. The mock models run in worker threads (mock-worker.ts), so their
 * clock is never held up by a gateway's work.
 * `npx tsx bench/codex/index.ts [--quick] [--latency off|MS,TPS]` prints the tables on their own;
 * `npm run bench -- --only codex` puts them in the report.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CODEX_BIN } from '../../tests/support/codex-rig.js';
import { type BenchContext, latencyFromArgs } from '../context.js';
import type { Check, SectionBody, Table } from '../report.js';
import { load, mb, ms, type Summary, summarize } from '../stats.js';
import { mockInWorker } from './mock-worker.js';
import { modelMemory } from './process-model.js';
import {
  COMMAND_SECONDS,
  CORRECTION_AFTER_MS,
  perConversation,
  type Waits,
  waitsRound,
  warmMemory,
} from './scenarios.js';
import { codexFloor, MarkedCommand, type Phases, rudderOnClaude, rudderOnCodex, type Side } from './sides.js';

export const CODEX_FLOOR_TARGET_MS = 10;

const say = (s: string) => void process.stdout.write(`${s}\n`);

export async function benchCodex(ctx: BenchContext): Promise<SectionBody> {
  const runs = ctx.quick ? 3 : 10;
  const max = ctx.quick ? 3 : 6;
  const codexMock = await mockInWorker('responses', ctx.latency);
  const claudeMock = await mockInWorker('anthropic', ctx.latency);
  const marks = new MarkedCommand();
  const sides: Side[] = [];
  try {
    sides.push(await codexFloor(codexMock), await rudderOnCodex(codexMock), await rudderOnClaude(claudeMock));
    const [floor, codex, claude] = sides as [Side, Side, Side];
    // A conversation on each side first: the app-servers (and a claude) are started, not measured.
    await Promise.all(sides.map((s, i) => s.send(`warm-${i}`, 'warm up tag:warm').then((m) => m.done)));
    // Memory next, with every side's processes running (PSS divides a binary's pages among its processes).
    const memory = [];
    for (const [i, s] of sides.entries()) memory.push(await warmMemory(s, max, `s${i}`, say));
    const samples: Waits[][] = sides.map(() => []);
    for (let r = 0; r < runs; r++) {
      // One side at a time (they share this process's event loop), in a different order each round.
      const round: Waits[] = [];
      for (let k = 0; k < sides.length; k++) {
        const i = (r + k) % sides.length;
        round[i] = await waitsRound(sides[i]!, marks, `r${r}s${i}`);
      }
      for (const [i, w] of round.entries()) samples[i]!.push(w);
      say(
        `  round ${r + 1}/${runs}: correction floor ${ms(round[0]!.correction)}, Rudder on Codex ` +
          `${ms(round[1]!.correction)}, Rudder on Claude ${ms(round[2]!.correction)} (load ${load()[0]})`,
      );
    }
    for (const s of sides.splice(0)) await s.close();
    const shared = await modelMemory(codexMock, 'shared', max);
    const each = await modelMemory(codexMock, 'per conversation', max);
    return report(ctx, { runs, max, floor, codex, claude }, samples, memory.map(perConversation), { shared, each });
  } finally {
    await Promise.allSettled(sides.map((s) => s.close()));
    await codexMock.close();
    await claudeMock.close();
  }
}

type PerConv = ReturnType<typeof perConversation>;

function codexVersion(): string {
  try {
    return execFileSync(CODEX_BIN, ['--version'], { encoding: 'utf8', timeout: 15_000 }).trim();
  } catch {
    return 'version unknown';
  }
}

const signed = (d: number) => `${d >= 0 ? '+' : '−'}${ms(Math.abs(d))}`;

function report(
  ctx: BenchContext,
  run: { runs: number; max: number; floor: Side; codex: Side; claude: Side },
  samples: Waits[][],
  memory: PerConv[],
  model: { shared: PerConv & { rows: unknown[] }; each: PerConv & { rows: unknown[] } },
): SectionBody {
  const finite = (vs: Array<number | undefined>) =>
    vs.filter((v): v is number => v !== undefined && Number.isFinite(v));
  const sum = (i: number, k: Exclude<keyof Waits, 'warmPhases'>) => summarize(finite(samples[i]!.map((w) => w[k])));
  const phase = (i: number, k: keyof Phases) => fig(summarize(finite(samples[i]!.map((w) => w.warmPhases?.[k]))));
  const fig = (s: Summary) => `${ms(s.p50)} / ${ms(s.p95)}`;
  const diff = (a: Summary, b: Summary) => signed(a.p50 - b.p50);
  const row = (label: string, k: Exclude<keyof Waits, 'warmPhases'>) => [
    label,
    fig(sum(0, k)),
    fig(sum(1, k)),
    diff(sum(1, k), sum(0, k)),
    fig(sum(2, k)),
  ];
  const correction = { floor: sum(0, 'correction'), codex: sum(1, 'correction'), claude: sum(2, 'correction') };
  const overFloor = correction.codex.p50 - correction.floor.p50;
  const afterEnd = (i: number) => sum(i, 'boundary').p50;
  const boundaryOverFloor = afterEnd(1) - afterEnd(0);
  const margins = finite(samples[1]!.map((w) => w.margin));
  const inTime = margins.filter((m) => m > 0).length;
  const host = { floor: sum(0, 'hostIn'), codex: sum(1, 'hostIn'), claude: sum(2, 'hostIn') };
  const boundary = { floor: sum(0, 'boundary'), codex: sum(1, 'boundary'), claude: sum(2, 'boundary') };
  const latency = ctx.latency ? `${ctx.latency.firstTokenMs} ms to the first token` : 'none';
  const waits: Table = {
    caption:
      `What a person waits for, p50 / p95 over ${run.runs} rounds (mock model latency: ${latency}). The correction ` +
      `is sent ${CORRECTION_AFTER_MS} ms into a ${COMMAND_SECONDS} s command; its figure runs until the model gets ` +
      'the request that holds it:',
    head: ['', run.floor.name, run.codex.name, 'Rudder − floor (p50)', run.claude.name],
    rows: [
      row('new conversation: first text', 'newFirstText'),
      row('warm turn: first text', 'warmFirstText'),
      row('correction mid-command → the model has it', 'correction'),
    ],
  };
  const phases: Table = {
    caption:
      "The correction by phase, p50 / p95: the host's part (having it: the gateway's HTTP request, the floor's " +
      "call → its write to the agent's stdin), and the agent's (the command's end → the request):",
    head: ['', "host: has it → agent's stdin", 'agent: command ends → request'],
    rows: [
      [run.floor.name, fig(host.floor), fig(boundary.floor)],
      [run.codex.name, fig(host.codex), fig(boundary.codex)],
      [run.claude.name, fig(host.claude), fig(boundary.claude)],
    ],
  };
  const warmPhases: Table = {
    caption:
      "A warm turn's first text by phase, p50 / p95: the host's part in (having the message → its write to the " +
      "agent's stdin), the agent's (that write → its request to the model; the model's request → the first text " +
      "on the agent's stdout, the model's latency), the host's part out (that → the client has it; Rudder's " +
      'includes the event stream to the page):',
    head: ['', 'host: in', 'agent → model', 'model → first text', 'host: out'],
    rows: [0, 1, 2].map((i) => [
      [run.floor, run.codex, run.claude][i]!.name,
      phase(i, 'hostIn'),
      phase(i, 'toModel'),
      phase(i, 'model'),
      phase(i, 'hostOut'),
    ]),
  };
  const mem = (label: string, m: PerConv) => [label, mb(m.first), mb(m.further), mb(m.atMax)];
  const perWarm: Table = {
    caption:
      'Memory per warm conversation (PSS of the agent processes and what they started; each conversation ran ' +
      'one turn with a command):',
    head: ['', 'the first conversation', 'each further one', `per conversation at n=${run.max}`],
    rows: [mem(run.floor.name, memory[0]!), mem(run.codex.name, memory[1]!), mem(run.claude.name, memory[2]!)],
  };
  const processModel: Table = {
    caption: 'The process model: Rudder on Codex with one shared app-server, and with an app-server per conversation:',
    head: ['', 'the first conversation', 'each further one', `per conversation at n=${run.max}`],
    rows: [mem('shared app-server', model.shared), mem('app-server per conversation', model.each)],
  };
  const checks: Check[] = [
    {
      target:
        `Rudder on Codex: a correction sent mid-command reaches the model ≤ ${CODEX_FLOOR_TARGET_MS} ms after the ` +
        "floor's (p50, from sending it)",
      measured: `${signed(overFloor)} (Rudder p50 ${ms(correction.codex.p50)}, floor p50 ${ms(correction.floor.p50)})`,
      pass: overFloor <= CODEX_FLOOR_TARGET_MS,
      why:
        'Both hand the correction to codex (turn/steer) long before the command ends, and codex gives it to the ' +
        "model with the command's output; from sending it, the figure is the rest of the command plus that step. " +
        "The rest of the command depends on when the benchmark's own timer sent the correction, which a busy " +
        'machine delays by tens of ms either way, on either side; the next target leaves that out.',
    },
    {
      target:
        `Rudder on Codex: from the command's end, the correction reaches the model ≤ ${CODEX_FLOOR_TARGET_MS} ms ` +
        "after the floor's (p50), handed to codex before the command ended in every run",
      measured:
        `${signed(boundaryOverFloor)} (Rudder p50 ${ms(afterEnd(1))}, floor p50 ${ms(afterEnd(0))}); handed over ` +
        `before the end in ${inTime} of ${margins.length} runs, at least ${ms(Math.min(...margins))} before it`,
      pass: boundaryOverFloor <= CODEX_FLOOR_TARGET_MS && inTime === margins.length && margins.length > 0,
      why:
        `Rudder's own part, from the HTTP request to the write to codex, is p50 ${ms(host.codex.p50)} ` +
        `(p95 ${ms(host.codex.p95)}); the floor's ${ms(host.floor.p50)}. What comes after the command's end is ` +
        "codex's step, the same binary and environment on both.",
    },
    {
      target: 'one shared app-server costs less per further warm conversation than a server each',
      measured: `${mb(model.shared.further)} shared against ${mb(model.each.further)} per server`,
      pass: model.shared.further < model.each.further,
      why: 'This is why server/servers.ts runs one app-server per binary, config and environment.',
    },
  ];
  return {
    tables: [waits, warmPhases, phases, perWarm, processModel],
    checks,
    notes: [
      `Codex: ${codexVersion()} (the pinned @openai/codex), for all three codex figures and the process model.`,
      'Rudder is measured as a person on the web page sees it: from sending the message (HTTP POST) to the event ' +
        "stream's first text; the floor from its call to the first text delta on codex's stdout. The mock models " +
        'run in worker threads, so a busy gateway does not delay when they see a request.',
      'A new conversation on Codex is a new thread on the running app-server (the first conversation of a gateway ' +
        'also starts the server, about the figure of a cold start: not in these rows); on Claude it is a new claude ' +
        'process (steering.spareProcess off, as in the tests: with it on, one start-up is saved).',
      'Memory on Codex is the one app-server shared by every conversation, its shells included; on Claude a process ' +
        "per warm conversation. The gateway's own memory per conversation is in the Memory section. PSS divides a " +
        "binary's pages among the processes that map it, so a first conversation's figure depends on how many run " +
        "(here the floor's and Rudder's app-servers side by side, in the process model one or n); each further " +
        "one's does not.",
    ],
    data: { samples, memory, model, correction, host, boundary, overFloor },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const body = await benchCodex({ quick: argv.includes('--quick'), latency: latencyFromArgs(argv) });
  for (const t of body.tables) {
    say(`\n${t.caption ?? ''}\n${t.head.join(' | ')}`);
    for (const r of t.rows) say(r.join(' | '));
  }
  for (const c of body.checks) say(`\n${c.pass ? 'PASS' : 'FAIL'} ${c.target}: ${c.measured}`);
  process.exit(0);
}
