/**
 * `npm run codex:protocol`: regenerates src/agents/codex/protocol/generated/ from the pinned codex
 * binary (`codex app-server generate-ts`), so the types always match the version package.json pins.
 * The generator writes extensionless relative imports; this project resolves modules as NodeNext,
 * so each one gets its `.js` (or `/index.js` for a folder). Nothing else is changed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveCodexBinary } from '../src/agents/codex/binary.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = path.join(ROOT, 'src/agents/codex/protocol/generated');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** `./X` → `./X.js`, or `./X/index.js` when X is a folder. */
function withExtensions(file: string, text: string): string {
  return text.replace(/from "(\.\.?\/[^"]+)"/g, (whole, spec: string) => {
    if (spec.endsWith('.js')) return whole;
    const target = path.resolve(path.dirname(file), spec);
    const rewritten = fs.existsSync(target) && fs.statSync(target).isDirectory() ? `${spec}/index.js` : `${spec}.js`;
    return `from "${rewritten}"`;
  });
}

const bin = resolveCodexBinary(process.env.RUDDER_CODEX_BIN, { PATH: '' }).path;
const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-protocol-'));
try {
  execFileSync(bin, ['app-server', 'generate-ts', '--out', tmp], { stdio: ['ignore', 'ignore', 'inherit'] });
  const files = tsFiles(tmp);
  for (const f of files) fs.writeFileSync(f, withExtensions(f, fs.readFileSync(f, 'utf8')));
  fs.rmSync(TARGET, { recursive: true, force: true });
  fs.cpSync(tmp, TARGET, { recursive: true });
  fs.writeFileSync(
    path.join(TARGET, 'README.md'),
    `# Generated: do not edit\n\nThe Codex app-server protocol types of \`${version}\`, written by\n` +
      '`codex app-server generate-ts` and `npm run codex:protocol` (which only adds `.js` to relative\n' +
      'imports). Regenerate after changing the pinned `@openai/codex` in package.json. The hand-written\n' +
      'layer on top is `../methods.ts`.\n',
  );
  process.stdout.write(`${files.length} files from ${version} (${bin}) written to ${path.relative(ROOT, TARGET)}\n`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
