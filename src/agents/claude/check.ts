/** What checking the claude binary found: plain data, shown by the status report and `rudder doctor`. */

/** Where the binary was found: agent.claudeBin, RUDDER_CLAUDE_BIN, PATH, or the pinned package. */
export type BinarySource = 'config' | 'env' | 'path' | 'bundled';

export interface ClaudeCheck {
  ok: boolean;
  /** The binary found (null when none was). */
  path: string | null;
  source: BinarySource | null;
  /** `claude --version`, e.g. "2.1.332 (Claude Code)". */
  version: string | null;
  problem: string | null;
  fix: string | null;
  checkedAt: string;
}
