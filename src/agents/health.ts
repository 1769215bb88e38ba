/**
 * The binaries of the agents a gateway's conversations run on (agent.backend and every project's
 * backend): claude for the Claude backends, codex for Codex. Checked at start (a warning that
 * names the fix, never a failed start: the page runs and says so) and again at most every 30 s as
 * the status report reads them. An agent no conversation runs on is not checked.
 */
import { CLAUDE_FIX, type ClaudeCheckInput, checkClaude } from './claude/health.js';
import { type CodexBinaryInput, checkCodexBinary } from './codex/binary-check.js';
import { CODEX_FIX } from './codex/health.js';
import type { BinaryCheck } from './common/binary-check.js';
import { BinaryHealth } from './common/binary-health.js';

export type AgentBinary = 'claude' | 'codex';

/** Each agent's last check; null when no conversation runs on it, or before its first check ends. */
export type AgentChecks = Record<AgentBinary, BinaryCheck | null>;

export interface AgentHealthDeps {
  /** The agents the config's backends run on, read at each refresh. */
  inUse(): ReadonlySet<AgentBinary>;
  claude(): ClaudeCheckInput;
  codex(): CodexBinaryInput;
}

export class AgentHealth {
  private readonly checks: Record<AgentBinary, BinaryHealth>;

  constructor(private readonly d: AgentHealthDeps) {
    this.checks = {
      claude: new BinaryHealth(() => checkClaude(d.claude()), { agent: 'Claude', fix: CLAUDE_FIX.broken }),
      codex: new BinaryHealth(() => checkCodexBinary(d.codex()), { agent: 'Codex', fix: CODEX_FIX.broken }),
    };
  }

  /** Checks every agent in use now; resolves with their results. */
  refresh(): Promise<BinaryCheck[]> {
    return Promise.all([...this.d.inUse()].map((a) => this.checks[a].refresh()));
  }

  current(): AgentChecks {
    const inUse = this.d.inUse();
    const of = (a: AgentBinary) => (inUse.has(a) ? (this.checks[a].current() ?? null) : null);
    return { claude: of('claude'), codex: of('codex') };
  }
}
