/** The benchmark report: one section per benchmark, written as bench/report.md and bench/report.json. */
import fs from 'node:fs';
import path from 'node:path';
import { type BenchContext, describeLatency } from './context.js';
import { load, type Machine } from './stats.js';

export interface Check {
  target: string;
  measured: string;
  pass: boolean;
  /** Why it falls short (or what the figure means), when that needs saying. */
  why?: string;
}

export interface Table {
  caption?: string;
  head: string[];
  rows: string[][];
}

export interface Section {
  id: string;
  title: string;
  /** Load average (1, 5, 15 min) when the benchmark started and ended. */
  load: { before: number[]; after: number[] };
  /** How long it ran (ms). */
  durationMs: number;
  tables: Table[];
  checks: Check[];
  notes: string[];
  /** Raw figures, for report.json. */
  data: Record<string, unknown>;
}

export type SectionBody = Omit<Section, 'id' | 'title' | 'load' | 'durationMs'>;

/** Runs one benchmark, recording the load around it. */
export async function measure(id: string, title: string, run: () => Promise<SectionBody>): Promise<Section> {
  const before = load();
  const t0 = Date.now();
  process.stdout.write(`\n== ${title} (load ${before.join(' ')})\n`);
  let body: SectionBody;
  try {
    body = await run();
  } catch (err) {
    // One broken section must not cost the others: the report says what failed, and the run goes on.
    const message = (err as Error).stack ?? String(err);
    process.stdout.write(`  the benchmark failed: ${message}\n`);
    body = {
      tables: [],
      checks: [
        {
          target: `${title}: the benchmark ran`,
          measured: 'it failed',
          pass: false,
          why: `It stopped with: ${(err as Error).message}`,
        },
      ],
      notes: [],
      data: { error: message },
    };
  }
  const section: Section = { id, title, load: { before, after: load() }, durationMs: Date.now() - t0, ...body };
  for (const c of section.checks)
    process.stdout.write(`  ${c.pass ? 'PASS' : 'FALL SHORT'}  ${c.target}: ${c.measured}\n`);
  process.stdout.write(
    `  (${(section.durationMs / 1000).toFixed(0)} s, load ${section.load.after.join(' ')} at the end)\n`,
  );
  return section;
}

function table(t: Table): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [t.caption ? `${t.caption}\n` : '', line(t.head), line(t.head.map(() => '---')), ...t.rows.map(line)].join(
    '\n',
  );
}

export function renderMarkdown(
  m: Machine,
  startedAt: Date,
  sections: Section[],
  argv: string[],
  ctx: BenchContext,
): string {
  const out: string[] = [];
  out.push('# Rudder benchmark report', '');
  out.push(`Run ${startedAt.toISOString()} with \`npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}\`.`, '');
  out.push(
    `Machine: ${m.cores} cores (${m.cpuModel}), ${m.memoryGb} GB, ${m.platform}, Node ${m.node}, Claude ` +
      `Code ${m.claudeVersion}.`,
    '',
  );
  out.push(
    `Model latency (the mock Messages API, in every benchmark that involves the ` +
      `model): ${describeLatency(ctx.latency)}.`,
    '',
  );
  const loads = sections.flatMap((s) => [s.load.before[0]!, s.load.after[0]!]);
  if (loads.length) {
    const busy = Math.max(...loads) >= m.cores;
    out.push(
      `Load average (1 min) over the run: ${Math.min(...loads)} to ${Math.max(...loads)} on ${m.cores} cores` +
        (busy
          ? ': the machine was busy with other work, so times that involve the CLI are slower and noisier ' +
            'than on a quiet machine'
          : '') +
        '. Each section gives its own below.',
      '',
    );
  }
  out.push('## Targets', '');
  out.push(
    table({
      head: ['', 'target', 'measured'],
      rows: sections.flatMap((s) => s.checks.map((c) => [c.pass ? 'PASS' : 'FALL SHORT', c.target, c.measured])),
    }),
    '',
  );
  for (const s of sections) {
    out.push(`## ${s.title}`, '');
    out.push(
      `${m.cores} cores; load average (1/5/15 min) ${s.load.before.join(' / ')} at the ` +
        `start, ${s.load.after.join(' / ')} at the end; ${(s.durationMs / 1000).toFixed(0)} s.`,
      '',
    );
    for (const t of s.tables) out.push(table(t), '');
    for (const c of s.checks) if (c.why) out.push(`- **${c.pass ? 'PASS' : 'FALL SHORT'}: ${c.target}.** ${c.why}`);
    if (s.checks.some((c) => c.why)) out.push('');
    for (const n of s.notes) out.push(`- ${n}`);
    if (s.notes.length) out.push('');
  }
  return out.join('\n');
}

export function writeReport(
  dir: string,
  m: Machine,
  startedAt: Date,
  sections: Section[],
  argv: string[],
  ctx: BenchContext,
): { md: string; json: string } {
  const md = path.join(dir, 'report.md');
  const json = path.join(dir, 'report.json');
  fs.writeFileSync(md, renderMarkdown(m, startedAt, sections, argv, ctx));
  fs.writeFileSync(
    json,
    JSON.stringify(
      { startedAt: startedAt.toISOString(), argv, machine: m, latency: ctx.latency ?? null, sections },
      null,
      2,
    ) + '\n',
  );
  return { md, json };
}
