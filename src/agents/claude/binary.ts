/** Finds the claude binary: the config value, then RUDDER_CLAUDE_BIN, then `claude` on PATH, then the bundled one. */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { RudderError } from '../../errors.js';
import type { BinarySource } from '../common/binary-check.js';

export interface ResolvedBinary {
  path: string;
  source: BinarySource;
}

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

/** The binary shipped by the pinned @anthropic-ai/claude-code package, when it is installed. */
export function bundledClaude(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve('@anthropic-ai/claude-code/package.json');
    const bin = path.join(path.dirname(pkg), 'bin', 'claude.exe');
    return isExecutable(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

export function resolveClaudeBinary(configured?: string, env: NodeJS.ProcessEnv = process.env): ResolvedBinary {
  if (configured) {
    if (!isExecutable(configured))
      throw new RudderError(
        'CLAUDE_BINARY_MISSING',
        `agent.claudeBin is set to ${configured}, which is not an executable file.`,
      );
    return { path: configured, source: 'config' };
  }
  const fromEnv = env.RUDDER_CLAUDE_BIN;
  if (fromEnv) {
    if (!isExecutable(fromEnv))
      throw new RudderError(
        'CLAUDE_BINARY_MISSING',
        `RUDDER_CLAUDE_BIN is set to ${fromEnv}, which is not an executable file.`,
      );
    return { path: fromEnv, source: 'env' };
  }
  const found = onPath('claude', env.PATH);
  if (found) return { path: found, source: 'path' };
  const bundled = bundledClaude();
  if (bundled) return { path: bundled, source: 'bundled' };
  throw new RudderError('CLAUDE_BINARY_MISSING');
}
