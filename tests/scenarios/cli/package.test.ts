/**
 * The package as a fresh clone uses it: `npx rudder` runs the built CLI, `engines` is what every
 * installed dependency declares it runs on, and the README says the same.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../../src/agents/acp/presets.js';
import { bundledClaude } from '../../../src/agents/claude/binary.js';
import { ROOT } from '../../support/gateway-rig.js';
import { satisfies } from '../../support/node-range.js';
import { cleanEnv } from '../../support/run-cli.js';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  engines: { node: string };
};
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The lowest version of each alternative of a range such as "^20.19.0 || ^22.13.0". */
const lowest = (range: string) => range.split('||').map((alt) => /(\d+\.\d+\.\d+)/.exec(alt)![1]!);

describe('npx rudder from the clone', () => {
  it('runs the built CLI: --version prints the package version, and leaves dist/ as it was', async () => {
    expect(pkg.bin.rudder).toBe('dist/cli/main.js');
    const bin = path.join(ROOT, pkg.bin.rudder!);
    // The build makes it executable, so a stale npx cache still runs it.
    expect(fs.statSync(bin).mode & 0o111).not.toBe(0);
    const before = fs.statSync(bin).mtimeMs;
    // A cache of its own: npx installs the clone afresh, as on a new machine, whatever this machine's cache holds.
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-npx-'));
    try {
      const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        // Without scripts: the install's prepare step would rebuild dist/ under the other tests' feet.
        const env = cleanEnv({
          npm_config_cache: cache,
          npm_config_update_notifier: 'false',
          npm_config_offline: 'true',
          npm_config_ignore_scripts: 'true',
        });
        const c = spawn('npx', ['rudder', '--version'], { cwd: ROOT, env });
        let stdout = '';
        let stderr = '';
        c.stdout.on('data', (d) => (stdout += d));
        c.stderr.on('data', (d) => (stderr += d));
        c.on('close', (status) => resolve({ status, stdout, stderr }));
      });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe(pkg.version);
      expect(r.status).toBe(0);
      expect(fs.statSync(bin).mtimeMs).toBe(before);
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('engines and the README', () => {
  it('the range reader reads npm ranges as npm does', () => {
    expect(satisfies('20.19.0', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('21.0.0', '20.x || 22.x')).toBe(false);
    expect(satisfies('20.18.0', '>=20.18.1')).toBe(false);
    expect(satisfies('22.0.0', '>= 0.10')).toBe(true);
    expect(satisfies('20.19.0', '20 || >=22')).toBe(true);
    expect(satisfies('20.19.0', '>=22.0.0')).toBe(false);
  });

  it(
    'engines.node holds this Node, and every installed package runs on the lowest version of each of its ' + 'ranges',
    () => {
      expect(satisfies(process.versions.node, pkg.engines.node)).toBe(true);
      const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { engines?: { node?: string } }>;
      };
      const native = '@anthropic-ai/claude-code';
      // Asks for Node 22 but needs only globalThis.crypto (Node 20 has it): the test below runs it.
      const nuid = '@nats-io/nuid';
      // An ACP agent that needs a newer Node runs on the Node 22 binary its preset names (tests/scenarios/acp run it).
      const ownNode = Object.values(PRESETS).flatMap((p) =>
        p.bundled?.kind === 'node-script' && p.bundled.minNode > 20 ? [`node_modules/${p.bundled.package}`] : [],
      );
      const wrong: string[] = [];
      for (const [where, p] of Object.entries(lock.packages)) {
        if (!where || !p.engines?.node || where.endsWith(`node_modules/${native}`)) continue;
        if (where.endsWith(`node_modules/${nuid}`) || ownNode.includes(where)) continue;
        if (!fs.existsSync(path.join(ROOT, where, 'package.json'))) continue; // another platform's optional package
        for (const v of lowest(pkg.engines.node))
          if (!satisfies(v, p.engines.node)) wrong.push(`${where} wants ${p.engines.node}, not ${v}`);
      }
      expect(wrong).toEqual([]);
    },
  );

  it(
    'the pinned claude-code package wants Node 22 in its engines, but what it installs is a native binary ' +
      '(it does not run on Node)',
    () => {
      const cc = JSON.parse(
        fs.readFileSync(path.join(ROOT, 'node_modules/@anthropic-ai/claude-code/package.json'), 'utf8'),
      ) as { engines: { node: string } };
      expect(satisfies(process.versions.node, cc.engines.node)).toBe(false); // the EBADENGINE warning npm prints
      const head = Buffer.alloc(4);
      const fd = fs.openSync(bundledClaude()!, 'r');
      fs.readSync(fd, head, 0, 4, 0);
      fs.closeSync(fd);
      // ELF or Mach-O.
      expect(head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) || head.readUInt32LE(0) === 0xfeedfacf).toBe(true);
    },
  );

  it('the NATS client’s @nats-io/nuid asks for Node 22 in its engines, and runs on this Node', async () => {
    const pkgOf = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/@nats-io/nuid/package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(pkgOf.engines.node).toBe('>= 22.x'); // the second EBADENGINE warning the README names
    const { nuid } = (await import('@nats-io/nuid')) as { nuid: { next(): string } };
    const ids = new Set(Array.from({ length: 1000 }, () => nuid.next()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{22}$/);
  });

  it('the README states the same Node versions, the warning, and where the API key goes', () => {
    expect(README).toContain(`Node.js \`${pkg.engines.node}\``);
    expect(README).toContain('EBADENGINE');
    expect(README).toContain('`@nats-io/nuid`');
    const quick = README.slice(0, README.indexOf('## How messages are handled'));
    expect(quick).toContain('ANTHROPIC_API_KEY=');
    expect(quick).toMatch(/"agent":\s*\{\s*"env":\s*\{\s*"ANTHROPIC_API_KEY"/);
    expect(quick).toContain('npx rudder');
  });

  it('keeps the config the README puts the API key in out of commits, in the clone and below it', () => {
    // git itself says what it ignores: the file at the top and in any folder (a project's own config).
    const r = spawnSync('git', ['check-ignore', '--no-index', 'rudder.config.json', 'sub/dir/rudder.config.json'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(['rudder.config.json', 'sub/dir/rudder.config.json']);
  });
});
