/** The config loader (config/load.ts), fuzzed: any JSON gives a valid config or an error naming the key. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { isRudderError } from '../../../src/errors.js';

describe('config loader, fuzzed', () => {
  it('gives a valid config or a clear error naming the key, for any JSON', () => {
    const known = fc.record(
      {
        agent: fc.dictionary(
          fc.constantFrom('model', 'permissionMode', 'cwd', 'env', 'bogus', 'turnTimeoutSeconds'),
          fc.jsonValue(),
        ),
        steering: fc.dictionary(
          fc.constantFrom('enabled', 'mode', 'maxLive', 'idleMinutes', 'queueCap', 'typo'),
          fc.jsonValue(),
        ),
        web: fc.dictionary(fc.constantFrom('port', 'host', 'enabled'), fc.jsonValue()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), known), (value) => {
        try {
          const c = parseConfig(value);
          expect(c.steering.queueCap).toBeGreaterThan(0);
        } catch (err) {
          expect(isRudderError(err, 'CONFIG_INVALID')).toBe(true);
          // Every line after the first names a key path (or the top level) and the problem.
          const lines = String((err as Error).message)
            .split('\n')
            .slice(1);
          expect(lines.length).toBeGreaterThan(0);
          for (const l of lines)
            expect(l).toMatch(
              /^\s+(\(top level\)|([\w-]+|\["(?:[^"\\]|\\.)*"\])(\.[\w-]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*): \S/,
            );
        }
      }),
      { numRuns: 1500 },
    );
  });
});
