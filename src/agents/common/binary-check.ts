/**
 * What checking an agent's binary found (claude, codex): plain data, shown at start as a warning,
 * by the status report and by `rudder doctor`. The check itself is check-binary.ts.
 */

/** Where the binary was found: the config (agent.claudeBin, agent.codex.bin), its variable, PATH, the pinned one. */
export type BinarySource = 'config' | 'env' | 'path' | 'bundled';

export interface BinaryCheck {
  /** The agent, as people read it: "Claude", "Codex". */
  agent: string;
  ok: boolean;
  /** The binary found (null when none was). */
  path: string | null;
  source: BinarySource | null;
  /** `<binary> --version`, e.g. "2.1.332 (Claude Code)", "codex-cli 0.171.0". */
  version: string | null;
  problem: string | null;
  fix: string | null;
  checkedAt: string;
}

/** The claude binary's check (the status report's `agent.claude`). */
export type ClaudeCheck = BinaryCheck;
