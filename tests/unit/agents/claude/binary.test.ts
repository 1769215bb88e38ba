/** Where the claude binary comes from (agents/claude/binary.ts): config, RUDDER_CLAUDE_BIN, PATH, the bundled one. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveClaudeBinary } from '../../../../src/agents/claude/binary.js';
import { isRudderError } from '../../../../src/errors.js';
import { tempDir } from '../../../support/claude-rig.js';

describe('claude binary resolution', () => {
  const dir = tempDir('bin');
  const exe = (name: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, '#!/bin/sh\n', { mode: 0o755 });
    return p;
  };
  const onPath = exe('claude');
  const viaEnv = exe('claude-env');
  const viaConfig = exe('claude-config');

  it('prefers config, then RUDDER_CLAUDE_BIN, then PATH, then the bundled binary', () => {
    expect(resolveClaudeBinary(viaConfig, { RUDDER_CLAUDE_BIN: viaEnv, PATH: dir })).toEqual({
      path: viaConfig,
      source: 'config',
    });
    expect(resolveClaudeBinary(undefined, { RUDDER_CLAUDE_BIN: viaEnv, PATH: dir })).toEqual({
      path: viaEnv,
      source: 'env',
    });
    expect(resolveClaudeBinary(undefined, { PATH: `/nonexistent:${dir}` })).toEqual({ path: onPath, source: 'path' });
    const bundled = resolveClaudeBinary(undefined, { PATH: '/nonexistent' });
    expect(bundled.source).toBe('bundled');
    expect(bundled.path).toMatch(/@anthropic-ai\/claude-code\/bin\/claude\.exe$/);
  });

  it('names the setting that points nowhere', () => {
    try {
      resolveClaudeBinary('/no/such/claude', {});
      expect.unreachable();
    } catch (err) {
      expect(isRudderError(err, 'CLAUDE_BINARY_MISSING')).toBe(true);
      expect(String(err)).toContain('agent.claudeBin');
    }
    expect(() => resolveClaudeBinary(undefined, { RUDDER_CLAUDE_BIN: '/no/such' })).toThrow(/RUDDER_CLAUDE_BIN/);
  });
});
