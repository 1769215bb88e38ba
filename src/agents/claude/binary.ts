/** The claude binary: agent.claudeBin, then RUDDER_CLAUDE_BIN, then `claude` on PATH, then the pinned package's. */
import { type BinarySpec, packagedBinary, type ResolvedBinary, resolveBinary } from '../common/binary-lookup.js';

export type { ResolvedBinary };

/** The binary shipped by the pinned @anthropic-ai/claude-code package, when it is installed. */
export function bundledClaude(): string | undefined {
  return packagedBinary(['@anthropic-ai/claude-code'], ['bin', 'claude.exe']);
}

export const CLAUDE_BINARY: BinarySpec<'claude'> = {
  name: 'claude',
  agent: 'Claude',
  setting: 'agent.claudeBin',
  configured: (agent) => agent?.claudeBin,
  envVar: 'RUDDER_CLAUDE_BIN',
  bundled: bundledClaude,
  missingCode: 'CLAUDE_BINARY_MISSING',
  notFound: 'No claude binary: none on PATH, and the pinned @anthropic-ai/claude-code is not installed.',
  fix: {
    missing:
      'npm install (it brings the pinned @anthropic-ai/claude-code), or set agent.claudeBin / ' +
      'RUDDER_CLAUDE_BIN to a claude binary.',
    broken:
      'Reinstall Claude Code (npm ci brings the pinned @anthropic-ai/claude-code), or point agent.claudeBin / ' +
      'RUDDER_CLAUDE_BIN at a claude that runs.',
  },
};

export function resolveClaudeBinary(configured?: string, env: NodeJS.ProcessEnv = process.env): ResolvedBinary {
  return resolveBinary(CLAUDE_BINARY, configured, env);
}
