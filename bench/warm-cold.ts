/**
 * Warm vs cold follow-up turns on the real CLI: one persistent `claude -p --input-format
 * stream-json` process, against a new process per turn that resumes the session (`--resume`),
 * which is what a conversation pays when no process is kept for it. Turns alternate between the
 * two so both see the same machine; turns 2 to 10 are measured (turn 1 starts a process in both).
 * Time to the first assistant text (first streamed delta) and to the result, with the model's
 * latency profile and, for the CLI alone, with the mock answering at once.
 */
import type { ClaudeLaunch } from '../src/agents/claude/launch.js';
import { ClaudeStreamSession } from '../src/agents/claude/stream-session.js';
import type { AgentSession } from '../src/agents/session.js';
import { rigLaunch } from '../tests/support/claude-rig.js';
import { type LatencyProfile, type MockApi, startMockApi } from '../tests/support/mock-anthropic.js';
import type { BenchContext } from './context.js';
import { now, tapRudder } from './floor/wire-tap.js';
import { type Phases, phases, phaseTable } from './floor.js';
import type { Check, SectionBody, Table } from './report.js';
import { ms, summarize } from './stats.js';

const TURNS = 10;

interface Sample extends Phases {
  turn: number;
  result: number;
}

async function timedTurn(
  session: AgentSession,
  mock: MockApi,
  label: string,
  tag: string,
  turn: number,
): Promise<Sample> {
  const taps = tapRudder();
  const sentWall = Date.now();
  const t0 = now();
  let first: number | undefined;
  const t = session.startTurn({ inputs: [{ id: tag, text: `turn ${turn} tag:${tag}` }] });
  t.onEvent((e) => {
    if (first === undefined && (e.type === 'text-delta' || e.type === 'text')) first = now();
  });
  await t.result;
  const end = now();
  return { turn, result: end - t0, ...phases(taps, mock, label, `tag:${tag}`, t0, sentWall, first ?? end) };
}

async function run(turns: number, latency: LatencyProfile | undefined, tag: string) {
  const mock = await startMockApi({ latency });
  const warmLaunch = rigLaunch({ mockUrl: mock.url, conversationId: `warm-${tag}` });
  const warm = new ClaudeStreamSession(warmLaunch);
  const coldLaunch: ClaudeLaunch = rigLaunch({ mockUrl: mock.url, conversationId: `cold-${tag}` });
  let coldSession: string | undefined;
  const samples = { warm: [] as Sample[], cold: [] as Sample[] };
  try {
    for (let k = 1; k <= turns; k++) {
      // Alternate which goes first, so neither always runs right after the other's process exit.
      for (const name of k % 2 ? (['warm', 'cold'] as const) : (['cold', 'warm'] as const)) {
        const session = name === 'warm' ? warm : new ClaudeStreamSession({ ...coldLaunch, sessionId: coldSession });
        const r = await timedTurn(session, mock, `${name}-${tag}`, `${name}${tag}${k}`, k);
        if (name === 'cold') {
          coldSession = session.sessionId();
          await session.stop('one process per turn');
        }
        if (k >= 2) samples[name].push(r);
      }
    }
  } finally {
    await warm.stop('benchmark over');
    await mock.close();
  }
  return samples;
}

export async function benchWarmCold(ctx: BenchContext): Promise<SectionBody> {
  const turns = ctx.quick ? 4 : TURNS;
  const withModel = await run(turns, ctx.latency, 'm');
  const cliAlone = ctx.latency ? await run(turns, undefined, 'c') : withModel;
  const f = (s: Sample[]) => summarize(s.map((x) => x.total));
  const r = (s: Sample[]) => summarize(s.map((x) => x.result));
  const ratio = (s: typeof withModel) => f(s.cold).p50 / f(s.warm).p50;
  const rows = (label: string, s: typeof withModel) => [
    [`warm, ${label}`, ms(f(s.warm).p50), ms(f(s.warm).p95), ms(r(s.warm).p50), ms(r(s.warm).p95)],
    [`cold, ${label}`, ms(f(s.cold).p50), ms(f(s.cold).p95), ms(r(s.cold).p50), ms(r(s.cold).p95)],
    [`cold / warm, ${label}`, `${ratio(s).toFixed(1)}×`, '', `${(r(s.cold).p50 / r(s.warm).p50).toFixed(1)}×`, ''],
  ];
  const saving = f(withModel.cold).p50 - f(withModel.warm).p50;
  const startUp = (s: Sample[]) => summarize(s.map((x) => x.toRequest).filter(Number.isFinite)).p50;
  const checks: Check[] = [
    {
      target:
        'warm turns reach their first text at least 3× sooner than cold turns (the CLI alone: the mock ' +
        'answering at once)',
      measured:
        `${ratio(cliAlone).toFixed(1)}× (warm p50 ${ms(f(cliAlone.warm).p50)}, cold ` +
        `p50 ${ms(f(cliAlone.cold).p50)})`,
      pass: ratio(cliAlone) >= 3,
    },
  ];
  if (ctx.latency) {
    checks.push({
      target: "the same with the model's latency",
      measured:
        `${ratio(withModel).toFixed(1)}× (warm p50 ${ms(f(withModel.warm).p50)}, cold ` +
        `p50 ${ms(f(withModel.cold).p50)}): a warm process saves ${ms(saving)} a turn`,
      pass: ratio(withModel) >= 3,
      why:
        `By phase (table below): the cold turn's extra time is the CLI's start-up and session load before ` +
        `it sends its request (stdin → request: ` +
        `p50 ${ms(startUp(withModel.cold))} cold, ${ms(startUp(withModel.warm))} warm); the ` +
        `model's ${ctx.latency.firstTokenMs} ms to its first token is in both, so with a real model's ` +
        `latency no process can make a turn 3× faster. The saving per turn is what counts, and it stays.`,
    });
  }
  const tables: Table[] = [
    {
      caption: `Turns 2 to ${turns} (first text p50 / p95, result p50 / p95):`,
      head: ['', 'first text p50', 'p95', 'result p50', 'p95'],
      rows: [...(ctx.latency ? rows("with the model's latency", withModel) : []), ...rows('the CLI alone', cliAlone)],
    },
    phaseTable(
      "With the model's latency, by phase:",
      { name: 'warm', samples: withModel.warm },
      { name: 'cold', samples: withModel.cold },
    ),
  ];
  return {
    tables,
    checks,
    notes: [
      'Cold is a new stream-json process per turn that resumes the session, as for a conversation without a ' +
        'kept process; the host is the session class itself (no gateway), so the host phases here are the ' +
        "session's own.",
    ],
    data: { turns, withModel, cliAlone },
  };
}
