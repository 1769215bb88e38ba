/** store.synchronous: what the gateway's connection runs with (NORMAL by default, FULL when asked). */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';

// SQLite's numbering: PRAGMA synchronous reads 1 for NORMAL, 2 for FULL.
const level = (gw: Awaited<ReturnType<typeof startInProcess>>) =>
  gw.gw.services.store.db.pragma('synchronous', { simple: true });

describe('store.synchronous', () => {
  it('defaults to normal and takes only normal or full', () => {
    expect(parseConfig({}).store).toEqual({ synchronous: 'normal', groupCommit: true });
    expect(parseConfig({ store: { synchronous: 'full' } }).store.synchronous).toBe('full');
    expect(() => parseConfig({ store: { synchronous: 'off' } })).toThrow(
      /store\.synchronous: Invalid option: expected one of "normal"\|"full"/,
    );
    expect(() => parseConfig({ store: { fsync: true } })).toThrow(/store\.fsync: unknown key/);
  });

  it.each([
    [undefined, 1],
    ['normal', 1],
    ['full', 2],
  ] as const)(
    'the running gateway, with %s, syncs at level %i and stays in WAL mode',
    async (synchronous, expected) => {
      const gw = await startInProcess({
        agent: agentConfig('http://127.0.0.1:9', tempDir('chome')),
        ...(synchronous ? { store: { synchronous } } : {}),
      });
      try {
        expect(level(gw)).toBe(expected);
        expect(gw.gw.services.store.db.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        await gw.stop();
      }
    },
  );
});
