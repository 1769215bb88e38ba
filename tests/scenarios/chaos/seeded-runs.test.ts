/**
 * The short chaos run: two seeded runs on the real CLI and the mock Messages API that between them
 * play every fault kind once (each run half of them, in a seeded order), then the invariant
 * checker (tests/support/chaos/invariants.ts). The long version is `npm run chaos -- --runs N --seed S`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../../support/chaos/faults.js';
import { runChaos } from '../../support/chaos/run.js';

const HALVES = [FAULTS.filter((_, i) => i % 2 === 0), FAULTS.filter((_, i) => i % 2 === 1)];
const played = new Set<string>();
let finished = 0;

describe('chaos (real CLI, seeded)', () => {
  afterAll(() => {
    // Only meaningful when every run got as far as reporting (not under -t filtering).
    if (finished === HALVES.length) expect([...played].sort()).toEqual([...FAULTS].sort());
  });

  it.each([
    [11, 0],
    [12, 1],
  ])(
    'seed %i: nothing lost, nothing duplicated, nothing leaked',
    async (seed, half) => {
      const kinds = HALVES[half]!;
      const r = await runChaos({ seed, kinds, filler: 1 });
      finished++;
      for (const k of r.kinds) played.add(k);
      expect([...r.kinds].sort(), `faults skipped for want of a moment:\n${r.timeline.join('\n')}`).toEqual(
        [...kinds].sort(),
      );
      expect(r.faults).toHaveLength(kinds.length);
      // Every sender of the run is an owner, the slow channel's included: nothing may be refused.
      expect(r.states.refused ?? 0).toBe(0);
      expect(
        r.violations.map((v) => `[${v.kind}] ${v.detail}`),
        r.timeline.join('\n'),
      ).toEqual([]);
    },
    180_000,
  );
});
