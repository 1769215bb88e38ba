/**
 * Warm vs cold follow-up turns on the real CLI: one persistent `claude -p --input-format
 * stream-json` process against one `claude -p --resume <id>` process per turn. Turns alternate
 * between the two so both see the same machine; turns 2 to 10 are measured (turn 1 starts a
 * process in both). Time to the first assistant text (first streamed delta) and to the result.
 */
import { performance } from 'node:perf_hooks';
import { ClaudeOneShotSession } from '../src/agents/claude/oneshot-session.js';
import { ClaudeStreamSession } from '../src/agents/claude/stream-session.js';
import type { AgentSession } from '../src/agents/session.js';
import { rigLaunch } from '../tests/support/claude-rig.js';
import { startMockApi } from '../tests/support/mock-anthropic.js';
import type { SectionBody } from './report.js';
import { ms, summarize } from './stats.js';

const TURNS = 10;

async function timedTurn(session: AgentSession, id: string, text: string): Promise<{ firstText: number; result: number }> {
  const t0 = performance.now();
  let first: number | undefined;
  const turn = session.startTurn({ inputs: [{ id, text }] });
  turn.onEvent((e) => {
    if (first === undefined && (e.type === 'text-delta' || e.type === 'text')) first = performance.now();
  });
  await turn.result;
  const end = performance.now();
  return { firstText: (first ?? end) - t0, result: end - t0 };
}

export async function benchWarmCold(quick: boolean): Promise<SectionBody> {
  const turns = quick ? 4 : TURNS;
  const mock = await startMockApi();
  const warm = new ClaudeStreamSession(rigLaunch({ mockUrl: mock.url, conversationId: 'warm' }));
  const cold = new ClaudeOneShotSession(rigLaunch({ mockUrl: mock.url, conversationId: 'cold' }));
  const samples = { warm: [] as Array<{ turn: number; firstText: number; result: number }>, cold: [] as Array<{ turn: number; firstText: number; result: number }> };
  try {
    for (let k = 1; k <= turns; k++) {
      // Alternate which goes first, so neither always runs right after the other's process exit.
      const order: Array<['warm' | 'cold', AgentSession]> = k % 2 ? [['warm', warm], ['cold', cold]] : [['cold', cold], ['warm', warm]];
      for (const [name, s] of order) {
        const r = await timedTurn(s, `${name}-${k}`, `turn ${k} tag:${name}${k}`);
        if (k >= 2) samples[name].push({ turn: k, ...r });
      }
    }
  } finally {
    await Promise.allSettled([warm.stop('benchmark over'), cold.stop('benchmark over')]);
    await mock.close();
  }
  const wf = summarize(samples.warm.map((s) => s.firstText));
  const cf = summarize(samples.cold.map((s) => s.firstText));
  const wr = summarize(samples.warm.map((s) => s.result));
  const cr = summarize(samples.cold.map((s) => s.result));
  const ratio = cf.p50 / wf.p50;
  return {
    tables: [
      {
        caption: `Turns 2 to ${turns}, the mock answering at once:`,
        head: ['', 'first text p50', 'p95', 'result p50', 'p95'],
        rows: [
          ['warm: persistent process', ms(wf.p50), ms(wf.p95), ms(wr.p50), ms(wr.p95)],
          ['cold: claude -p --resume per turn', ms(cf.p50), ms(cf.p95), ms(cr.p50), ms(cr.p95)],
          ['cold / warm', `${ratio.toFixed(1)}×`, `${(cf.p95 / wf.p95).toFixed(1)}×`, `${(cr.p50 / wr.p50).toFixed(1)}×`, `${(cr.p95 / wr.p95).toFixed(1)}×`],
        ],
      },
      {
        caption: 'Per turn (ms, first text / result):',
        head: ['turn', ...samples.warm.map((s) => String(s.turn))],
        rows: [
          ['warm', ...samples.warm.map((s) => `${s.firstText.toFixed(0)} / ${s.result.toFixed(0)}`)],
          ['cold', ...samples.cold.map((s) => `${s.firstText.toFixed(0)} / ${s.result.toFixed(0)}`)],
        ],
      },
    ],
    checks: [{ target: 'warm turns reach their first text at least 3× sooner than cold turns', measured: `${ratio.toFixed(1)}× (warm p50 ${ms(wf.p50)}, cold p50 ${ms(cf.p50)})`, pass: ratio >= 3 }],
    notes: [
      `The saving is the process start and session load of a cold turn, about ${ms(cf.p50 - wf.p50)} per turn here. A real model adds the same latency to both, so against a real API the ratio is smaller while the absolute saving stays.`,
    ],
    data: { turns, warm: { firstText: wf, result: wr, samples: samples.warm }, cold: { firstText: cf, result: cr, samples: samples.cold }, ratio },
  };
}
