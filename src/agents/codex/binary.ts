/**
 * Finds the codex binary: agent.codex.bin, then RUDDER_CODEX_BIN, then `codex` on PATH, then the
 * native binary of the pinned @openai/codex package. A path that is set but does not run is an
 * error naming the setting: no fallback, so a typo never silently runs another codex.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { RudderError } from '../../errors.js';

export interface ResolvedCodex {
  path: string;
  source: 'config' | 'env' | 'path' | 'bundled';
}

/** The version of @openai/codex this backend is built and tested against (package.json pins it). */
export const PINNED_CODEX_VERSION = '0.171.0';

/** The platform packages of @openai/codex and the target triple each ships (its bin/codex.js reads the same table). */
const PLATFORM_PACKAGES: Record<string, { pkg: string; triple: string }> = {
  'linux-x64': { pkg: '@openai/codex-linux-x64', triple: 'x86_64-unknown-linux-musl' },
  'linux-arm64': { pkg: '@openai/codex-linux-arm64', triple: 'aarch64-unknown-linux-musl' },
  'darwin-x64': { pkg: '@openai/codex-darwin-x64', triple: 'x86_64-apple-darwin' },
  'darwin-arm64': { pkg: '@openai/codex-darwin-arm64', triple: 'aarch64-apple-darwin' },
};

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The native binary of the pinned package, when it is installed. Its platform package is resolved
 * from @openai/codex itself, as the package's own launcher does; the launcher (a Node script) is
 * skipped so signals and the pid are the binary's own.
 */
export function bundledCodex(): string | undefined {
  const platform = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!platform) return undefined;
  try {
    const require = createRequire(import.meta.url);
    const main = require.resolve('@openai/codex/package.json');
    const pkg = createRequire(main).resolve(`${platform.pkg}/package.json`);
    const bin = path.join(path.dirname(pkg), 'vendor', platform.triple, 'bin', 'codex');
    return isExecutable(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

const notExecutable = (setting: string, value: string) =>
  new RudderError('CODEX_BINARY_MISSING', `${setting} is set to ${value}, which is not an executable file.`, {
    setting,
  });

export function resolveCodexBinary(configured?: string, env: NodeJS.ProcessEnv = process.env): ResolvedCodex {
  if (configured) {
    if (!isExecutable(configured)) throw notExecutable('agent.codex.bin', configured);
    return { path: configured, source: 'config' };
  }
  const fromEnv = env.RUDDER_CODEX_BIN;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw notExecutable('RUDDER_CODEX_BIN', fromEnv);
    return { path: fromEnv, source: 'env' };
  }
  const found = onPath('codex', env.PATH);
  if (found) return { path: found, source: 'path' };
  const bundled = bundledCodex();
  if (bundled) return { path: bundled, source: 'bundled' };
  throw new RudderError('CODEX_BINARY_MISSING');
}
