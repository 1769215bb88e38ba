/** `rudder pane-state` on real captures of the pinned TUI, and the package's exported classifier. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../../support/gateway-rig.js';

const FIXTURES = path.join(ROOT, 'tests/fixtures/panes');
const manifest = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as {
  captures: Array<{ file: string; expected: string }>;
};
const pick = (verdict: string) => manifest.captures.find((c) => c.expected === verdict)!;

describe('rudder pane-state', () => {
  it.each(['ready', 'busy', 'menu', 'not-ready'])('prints %s for a capture labelled so (--file)', (verdict) => {
    const c = pick(verdict);
    const r = spawnSync(process.execPath, [CLI, 'pane-state', '--file', path.join(FIXTURES, c.file)], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${verdict}\n`);
  });

  it('reads stdin by default and prints reasons with --json', () => {
    const c = pick('menu');
    const r = spawnSync(process.execPath, [CLI, 'pane-state', '--json'], {
      input: fs.readFileSync(path.join(FIXTURES, c.file)),
      encoding: 'utf8',
    });
    const out = JSON.parse(r.stdout);
    expect(out.state).toBe('menu');
    expect(Array.isArray(out.reasons) && out.reasons.length > 0).toBe(true);
  });

  it('says what it could not read', () => {
    const r = spawnSync(process.execPath, [CLI, 'pane-state', '--file', '/no/such/capture'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('cannot read /no/such/capture');
  });

  it('is exported from the package', async () => {
    const pkg = await import(path.join(ROOT, 'dist/index.js'));
    expect(pkg.classifyPane(fs.readFileSync(path.join(FIXTURES, pick('busy').file), 'utf8'))).toBe('busy');
    expect(pkg.canTypeNow(fs.readFileSync(path.join(FIXTURES, pick('menu').file), 'utf8'))).toBe(false);
  });
});
