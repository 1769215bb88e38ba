/**
 * The status report as GET /api/status sends it (and `rudder status`, `rudder doctor` read it):
 * plain data, no imports but types.
 */
import type { BinaryCheck } from '../../agents/common/binary-check.js';
import type { SharedProcessStatus } from '../../agents/common/process-status.js';
import type { NodeStatus } from '../../nodes/front/status.js';
import type { ScheduleStatus } from '../jobs/types.js';

export type { NodeStatus };

export interface StatusReport {
  version: string;
  uptimeSeconds: number;
  /**
   * maxLive: idle processes kept warm at most, and why that many; liveSessions: sessions with a process; warm: those
   * idle.
   */
  steering: {
    on: boolean;
    reason: string | null;
    mode: string;
    maxLive: number;
    maxLiveWhy: string;
    liveSessions: number;
    warm: number;
    /** Whether a process is kept started ahead for the next new conversation (steering.spareProcess), and why. */
    spareProcess: boolean;
    spareProcessWhy: string;
  };
  sessions: Array<{
    conversationId: string;
    backend: string;
    pid: number | null;
    state: string;
    idleSeconds: number;
    rssBytes: number | null;
    steered: number;
    sessionId: string | null;
    project: string;
  }>;
  /**
   * pausedFor: why a paused queue waits until pausedUntil (a rate limit, the agent terminal, the daily budget, an
   * agent on a node that cannot be reached).
   */
  queues: Array<{
    conversationId: string;
    depth: number;
    inFlight: number;
    pausedUntil: string | null;
    pausedFor: 'rate-limit' | 'agent-terminal' | 'budget' | 'agent-unreachable' | 'terminal-open' | null;
  }>;
  owedReplies: number;
  messages: Record<string, number>;
  /** `started` false: the channel has not started (yet); `error` says why, `retryAt` when it is tried again. */
  channels: Array<{ name: string; state: string; detail?: string; started: boolean; error?: string; retryAt?: string }>;
  /** What turns cost today (the gateway machine's local day), in all, per project with its budget, per conversation. */
  cost: CostReport;
  /**
   * The configured backend, and whether the binary of each agent the conversations run on runs: claude and codex are
   * null when no backend in the config runs on them, or until their first check ends; `binaries` holds every agent's
   * checked binary by its name (claude, codex, gemini, codex-acp…); `shared`, the agent processes conversations share
   * (Codex's app-servers, the ACP agents) with the end of their stderr.
   */
  agent: {
    backend: string;
    claude: BinaryCheck | null;
    codex: BinaryCheck | null;
    binaries: Record<string, BinaryCheck>;
    shared: SharedProcessStatus[];
  };
  gatewayRssBytes: number;
  /** With a nodes section: each node, its state, projects and live sessions (agents on other machines). */
  nodes?: NodeStatus[];
  /** Each schedule: its next run, its last run and the newest missed, failed or timed-out one of the week. */
  schedules: ScheduleStatus[];
}

/**
 * A sum of turns' costs. USD is the backend's own figure (Claude Code's total_cost_usd); a backend that reports
 * none (Codex, the terminal backend) counts in turnsWithoutCost and its tokens, never as $0.
 */
export interface SpendFigures {
  usd: number;
  /** Turns that ended with a result. */
  turns: number;
  /** Of those, turns without a reported cost (not in usd). */
  turnsWithoutCost: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}

export interface ProjectCost extends SpendFigures {
  project: string;
  /** Today's budget in USD (budget.dailyUsd, or what /budget set for today); null: none. */
  budgetUsd: number | null;
  budgetSource: 'config' | 'raised' | 'none';
  /** The budget is spent: new turns wait. */
  over: boolean;
  /** Messages waiting for this budget now. */
  heldMessages: number;
}

export interface CostReport {
  /** The local day (YYYY-MM-DD), when it began and when it resets (ISO 8601). */
  day: string;
  dayStartedAt: string;
  resetsAt: string;
  today: SpendFigures;
  /** Every configured project, and any other with turns today. */
  projects: ProjectCost[];
  /** Conversations with turns today, the most expensive first (at most 100). */
  conversations: Array<SpendFigures & { conversationId: string }>;
}
