/** fs/* for the agent, inside the conversation's directory only (after .. and symlinks). */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsGuard } from '../../../../src/agents/acp/client-fs.js';
import { tempDir } from '../../../support/claude-rig.js';

describe('FsGuard', () => {
  const setup = () => {
    const root = tempDir('acp-guard');
    const outside = tempDir('acp-guard-out');
    fs.writeFileSync(path.join(outside, 'secret'), 's');
    fs.writeFileSync(path.join(root, 'a.txt'), 'l1\nl2\nl3\nl4');
    fs.symlinkSync(outside, path.join(root, 'out'));
    fs.symlinkSync(path.join(root, 'a.txt'), path.join(root, 'in-link'));
    return { root, outside, guard: new FsGuard(root) };
  };

  it('reads inside, by lines too, and through a link that stays inside', () => {
    const { root, guard } = setup();
    expect(guard.read({ sessionId: 's', path: path.join(root, 'a.txt'), line: 2, limit: 2 })).toEqual({
      content: 'l2\nl3',
    });
    expect(guard.read({ sessionId: 's', path: path.join(root, 'in-link') }).content).toBe('l1\nl2\nl3\nl4');
  });

  it('refuses outside, relative, .. and symlinked paths, for reads and writes', () => {
    const { root, outside, guard } = setup();
    for (const p of [
      path.join(outside, 'secret'),
      path.join(root, '..', path.basename(outside), 'secret'),
      path.join(root, 'out', 'secret'),
      path.join(root, 'out', 'new', 'deeper.txt'),
      'a.txt',
    ]) {
      expect(() => guard.read({ sessionId: 's', path: p })).toThrow(/outside|absolute/);
      expect(() => guard.write({ sessionId: 's', path: p, content: 'x' })).toThrow(/outside|absolute/);
    }
    expect(fs.existsSync(path.join(outside, 'new'))).toBe(false);
    guard.write({ sessionId: 's', path: path.join(root, 'd', 'e.txt'), content: 'ok' });
    expect(fs.readFileSync(path.join(root, 'd', 'e.txt'), 'utf8')).toBe('ok');
  });
});
