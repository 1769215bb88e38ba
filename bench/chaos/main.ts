/**
 * `npm run chaos -- --runs N --seed S [--faults K] [--nodes N] [--jobs J] [--verbose] [--keep]`: N
 * seeded runs (seeds S, S+1, ...), each playing every fault kind once (with --nodes, the agents run
 * on that many `rudder node` processes and the node and NATS faults are played too), J of them at a
 * time (1 by default; each run has its own gateway, nodes, mock and temp dirs). Prints each run as it
 * ends, then `chaos: N runs, N faults, N lost, N duplicated, N ran-after-stop`; exits 1 on any
 * violation. Ctrl-C stops every process the runs under way started and prints the summary so far.
 */
import { ChaosRig } from '../../tests/support/chaos/rig.js';
import { type RunReport, runChaos } from '../../tests/support/chaos/run.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : fallback;
};
const runs = arg('runs', 3);
const seed = arg('seed', Date.now() % 100_000);
const faults = arg('faults', Infinity);
const nodes = arg('nodes', 0);
const verbose = argv.includes('--verbose');
const keep = argv.includes('--keep');
const jobs = Math.max(1, Math.min(arg('jobs', 1), runs));

const reports: RunReport[] = [];
let next = 0;
async function worker(): Promise<void> {
  while (next < runs) {
    const i = next++;
    const s = seed + i;
    process.stdout.write(`run ${i + 1}/${runs} (seed ${s}) started\n`);
    const r = await runChaos({ seed: s, faults: Number.isFinite(faults) ? faults : undefined, verbose, keep, nodes });
    reports.push(r);
    process.stdout.write(
      `run ${i + 1}/${runs} (seed ${s}): ${(r.durationMs / 1000).toFixed(0)} s, ${r.messages} messages ` +
        `${JSON.stringify(r.states)}, faults: ${r.faults.join('; ')}\n`,
    );
    if (r.violations.length) {
      process.stdout.write(`  ${r.violations.length} VIOLATION(S) (store and logs kept in ${r.home}):\n`);
      for (const v of r.violations) process.stdout.write(`    [${v.kind}] ${v.detail}\n`);
      if (!verbose) for (const line of r.timeline) process.stdout.write(`    ${line}\n`);
    }
  }
}

process.once('SIGINT', () => {
  process.stdout.write(`interrupted: stopping the ${ChaosRig.live.size} run(s) under way\n`);
  for (const rig of [...ChaosRig.live]) rig.abort();
  summary(reports.length);
  process.exit(130);
});
await Promise.all(Array.from({ length: jobs }, worker));
summary(runs);
process.exit(reports.some((r) => r.violations.length) ? 1 : 0);

function summary(done: number): void {
  const all = reports.flatMap((r) => r.violations);
  const count = (k: string) => all.filter((v) => v.kind === k).length;
  const others = all.filter((v) => !['lost', 'duplicated', 'ran-after-stop'].includes(v.kind));
  const kinds = new Map<string, number>();
  for (const r of reports) for (const k of r.kinds) kinds.set(k, (kinds.get(k) ?? 0) + 1);
  process.stdout.write(
    `chaos: ${done} runs${nodes ? ` on ${nodes} nodes` : ''}, ${reports.reduce((n, r) => n + r.faults.length, 0)} ` +
      `faults, ${count('lost')} lost, ${count('duplicated')} duplicated, ${count('ran-after-stop')} ran-after-stop` +
      `${others.length ? `, ${others.length} other violation(s)` : ''}\n` +
      `  faults played: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}\n`,
  );
}
