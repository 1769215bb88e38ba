/**
 * Since when a schedule's time is kept (catch-up starts there when no slot is stored): the first time it is seen,
 * kept while its line stays, `now` again when its line changes, its newest stored slot for a schedule that fired
 * before this record existed, and gone with the schedule.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/store.js';
import { tempDir } from '../../support/claude-rig.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const open = () => {
  store = new Store(path.join(tempDir('watch'), 'rudder.db'));
  return store.firings;
};

describe('schedule watch', () => {
  it('first seen: now; the same line: unchanged; a new line: now again', () => {
    const f = open();
    expect(f.watch('morning', '0 7 * * * UTC', 1_000)).toBe(1_000);
    expect(f.watch('morning', '0 7 * * * UTC', 5_000)).toBe(1_000);
    expect(f.watch('morning', '0 8 * * * UTC', 9_000)).toBe(9_000);
    expect(f.watch('morning', '0 8 * * * Europe/Bucharest', 12_000)).toBe(12_000);
  });

  it('a schedule with slots stored before it was watched is kept since its newest slot', () => {
    const f = open();
    f.insert({ schedule: 'night', slot: 3_000, state: 'skipped', startedAt: 3_000, endedAt: 3_000 });
    f.insert({ schedule: 'night', slot: 7_000, state: 'skipped', startedAt: 7_000, endedAt: 7_000 });
    expect(f.watch('night', '0 2 * * * UTC', 50_000)).toBe(7_000);
  });

  it('forget drops it: a new schedule of the same name starts afresh', () => {
    const f = open();
    f.watch('x', '* * * * * UTC', 1_000);
    f.forget('x');
    expect(f.watch('x', '* * * * * UTC', 4_000)).toBe(4_000);
  });
});
