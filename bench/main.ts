/**
 * `npm run bench`: every benchmark, side by side in one run, then bench/report.md and report.json.
 * Flags: --quick (fewer runs, for a smoke check), --only a,b (ids: steering, floor, waits,
 * warm-cold, overhead, memory, progress, web, push, nodes, codex, acp, schedules),
 * --latency FIRST_TOKEN_MS,TOKENS_PER_SECOND
 * or --latency off (the mock model's speed; default 1500,60).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLAUDE_BIN } from '../tests/support/claude-rig.js';
import { benchAcp } from './acp/index.js';
import { benchCodex } from './codex/index.js';
import { type BenchContext, describeLatency, latencyFromArgs } from './context.js';
import { untapAll } from './floor/wire-tap.js';
import { benchFloor } from './floor.js';
import { benchMemory } from './memory.js';
import { benchNodes } from './nodes/index.js';
import { benchOverhead } from './overhead/index.js';
import { benchProgress } from './progress/index.js';
import { benchPush } from './push.js';
import { measure, type Section, type SectionBody, writeReport } from './report.js';
import { benchSchedules } from './schedules/index.js';
import { machine } from './stats.js';
import { benchSteering } from './steering.js';
import { benchWaits } from './waits/index.js';
import { benchWarmCold } from './warm-cold.js';
import { benchWeb } from './web.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const onlyArg = argv[argv.indexOf('--only') + 1];
const only = argv.includes('--only') && onlyArg ? new Set(onlyArg.split(',')) : undefined;
const ctx: BenchContext = { quick, latency: latencyFromArgs(argv) };

const SECTIONS: Array<{ id: string; title: string; run: (ctx: BenchContext) => Promise<SectionBody> }> = [
  {
    id: 'steering',
    title: 'Corrections that arrive in time: steer, followup and the floor (real CLI, mock model with latency)',
    run: benchSteering,
  },
  { id: 'floor', title: 'The floor: Rudder against the Agent SDK on the same CLI and mock', run: benchFloor },
  {
    id: 'waits',
    title: 'What a person waits for: the web page and each chat channel, and a new conversation',
    run: benchWaits,
  },
  { id: 'warm-cold', title: 'Warm vs cold follow-up turns (real CLI)', run: benchWarmCold },
  { id: 'overhead', title: 'Gateway overhead (in-process fake agent)', run: benchOverhead },
  { id: 'memory', title: 'Memory', run: benchMemory },
  {
    id: 'progress',
    title: 'Turn progress in the chats (fake platforms, in-process fake agent)',
    run: (c) => benchProgress(c.quick),
  },
  { id: 'web', title: 'Web app (chromium)', run: (c) => benchWeb(c.quick) },
  {
    id: 'push',
    title: 'Notifications: a permission request to its Web Push (real CLI, fake push service)',
    run: (c) => benchPush(c.quick),
  },
  {
    id: 'nodes',
    title: 'Agents on a node over loopback NATS: the hop, durable throughput with 1 and 2 nodes, a node at rest',
    run: benchNodes,
  },
  {
    id: 'codex',
    title: 'Codex on Rudder against the floor (an app-server client) and against Claude on Rudder; the process model',
    run: benchCodex,
  },
  {
    id: 'acp',
    title: 'ACP agents offline: Rudder (AcpSession) against the floor (an SDK-only client); one process or several',
    run: benchAcp,
  },
  {
    id: 'schedules',
    title: "Schedules: a slot's time to the agent with 1 and 1,000 schedules; a gateway at rest with 1,000",
    run: benchSchedules,
  },
];
for (const id of only ?? [])
  if (!SECTIONS.some((s) => s.id === id))
    throw new Error(`--only: no benchmark "${id}" (there are: ${SECTIONS.map((s) => s.id).join(', ')})`);

const startedAt = new Date();
const m = machine(CLAUDE_BIN);
process.stdout.write(
  `Rudder benchmarks on ${m.cores} cores (${m.cpuModel}), Node ${m.node}, Claude ` +
    `Code ${m.claudeVersion}${quick ? ', quick' : ''}\nModel latency: ${describeLatency(ctx.latency)}\n`,
);
const sections: Section[] = [];
for (const s of SECTIONS)
  if (!only || only.has(s.id)) sections.push(await measure(s.id, s.title, () => s.run(ctx).finally(untapAll)));
const files = writeReport(HERE, m, startedAt, sections, argv, ctx);
process.stdout.write(
  `\nWrote ${path.relative(process.cwd(), files.md)} and ${path.relative(process.cwd(), files.json)} ` +
    `(${((Date.now() - startedAt.getTime()) / 60_000).toFixed(1)} min)\n`,
);
process.exit(0);
