/**
 * The short chaos run: two seeded runs on the real CLI and the mock Messages API, each playing a
 * seeded half of the fault kinds, then the invariant checker (bench/chaos/invariants.ts). The long
 * version is `npm run chaos -- --runs N --seed S`.
 */
import { describe, expect, it } from 'vitest';
import { runChaos } from '../../bench/chaos/run.js';

describe('chaos (real CLI, seeded)', () => {
  it.each([11, 12])('seed %i: nothing lost, nothing duplicated, nothing leaked', async (seed) => {
    const r = await runChaos({ seed, faults: 6, filler: 1 });
    expect(r.faults.length).toBeGreaterThan(0);
    expect(r.violations.map((v) => `[${v.kind}] ${v.detail}`), r.timeline.join('\n')).toEqual([]);
  }, 180_000);
});
