/**
 * `npm run bench`: every benchmark, side by side in one run, then bench/report.md and report.json.
 * Flags: --quick (fewer runs, for a smoke check), --only a,b (ids: steering, warm-cold, overhead, memory, progress, web).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLAUDE_BIN } from '../tests/support/claude-rig.js';
import { benchMemory } from './memory.js';
import { benchOverhead } from './overhead/index.js';
import { benchProgress } from './progress/index.js';
import { benchSteering } from './steering.js';
import { benchWarmCold } from './warm-cold.js';
import { benchWeb } from './web.js';
import { measure, writeReport, type Section } from './report.js';
import { machine } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const onlyArg = argv[argv.indexOf('--only') + 1];
const only = argv.includes('--only') && onlyArg ? new Set(onlyArg.split(',')) : undefined;
const want = (id: string) => !only || only.has(id);

const startedAt = new Date();
const m = machine(CLAUDE_BIN);
process.stdout.write(`Rudder benchmarks on ${m.cores} cores (${m.cpuModel}), Node ${m.node}, Claude Code ${m.claudeVersion}${quick ? ', quick' : ''}\n`);
const sections: Section[] = [];
if (want('steering')) sections.push(await measure('steering', 'Steering latency (real CLI, mock Messages API)', () => benchSteering(quick)));
if (want('warm-cold')) sections.push(await measure('warm-cold', 'Warm vs cold follow-up turns (real CLI)', () => benchWarmCold(quick)));
if (want('overhead')) sections.push(await measure('overhead', 'Gateway overhead (in-process fake agent)', () => benchOverhead(quick)));
if (want('memory')) sections.push(await measure('memory', 'Memory', () => benchMemory(quick)));
if (want('progress')) sections.push(await measure('progress', 'Turn progress in the chats (fake platforms, in-process fake agent)', () => benchProgress(quick)));
if (want('web')) sections.push(await measure('web', 'Web app (chromium)', () => benchWeb(quick)));
const files = writeReport(HERE, m, startedAt, sections, argv);
process.stdout.write(`\nWrote ${path.relative(process.cwd(), files.md)} and ${path.relative(process.cwd(), files.json)}\n`);
process.exit(0);
