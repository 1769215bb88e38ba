/**
 * The codex binary: agent.codex.bin, then RUDDER_CODEX_BIN, then `codex` on PATH, then the native
 * binary of the pinned @openai/codex package. A path that is set but does not run is an error
 * naming the setting: no fallback, so a typo never silently runs another codex.
 */
import { type BinarySpec, packagedBinary, type ResolvedBinary, resolveBinary } from '../common/binary-lookup.js';

/** The version of @openai/codex this backend is built and tested against (package.json pins it). */
export const PINNED_CODEX_VERSION = '0.171.0';

/** The platform packages of @openai/codex and the target triple each ships (its bin/codex.js reads the same table). */
const PLATFORM_PACKAGES: Record<string, { pkg: string; triple: string }> = {
  'linux-x64': { pkg: '@openai/codex-linux-x64', triple: 'x86_64-unknown-linux-musl' },
  'linux-arm64': { pkg: '@openai/codex-linux-arm64', triple: 'aarch64-unknown-linux-musl' },
  'darwin-x64': { pkg: '@openai/codex-darwin-x64', triple: 'x86_64-apple-darwin' },
  'darwin-arm64': { pkg: '@openai/codex-darwin-arm64', triple: 'aarch64-apple-darwin' },
};

/**
 * The native binary of the pinned package, when it is installed. Its platform package is resolved
 * from @openai/codex itself, as the package's own launcher does; the launcher (a Node script) is
 * skipped so signals and the pid are the binary's own.
 */
export function bundledCodex(): string | undefined {
  const platform = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!platform) return undefined;
  return packagedBinary(['@openai/codex', platform.pkg], ['vendor', platform.triple, 'bin', 'codex']);
}

export const CODEX_BINARY: BinarySpec<'codex'> = {
  name: 'codex',
  agent: 'Codex',
  setting: 'agent.codex.bin',
  configured: (agent) => agent?.codex.bin,
  envVar: 'RUDDER_CODEX_BIN',
  bundled: bundledCodex,
  missingCode: 'CODEX_BINARY_MISSING',
  notFound: 'No codex binary: none on PATH, and the pinned @openai/codex is not installed.',
  fix: {
    missing:
      'npm install (it brings the pinned @openai/codex), `npm install -g @openai/codex`, or set agent.codex.bin / ' +
      'RUDDER_CODEX_BIN to a codex binary.',
    broken: 'Reinstall Codex (npm ci brings the pinned @openai/codex), or point agent.codex.bin at a codex that runs.',
  },
  pinned: PINNED_CODEX_VERSION,
};

export function resolveCodexBinary(configured?: string, env: NodeJS.ProcessEnv = process.env): ResolvedBinary {
  return resolveBinary(CODEX_BINARY, configured, env);
}
