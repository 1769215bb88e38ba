/**
 * The status report as GET /api/status sends it (and `rudder status`, `rudder doctor` read it):
 * plain data, no imports but types.
 */
import type { ClaudeCheck } from '../../agents/claude/check.js';
import type { NodeStatus } from '../../nodes/front/status.js';

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
  queues: Array<{ conversationId: string; depth: number; inFlight: number; pausedUntil: string | null }>;
  owedReplies: number;
  messages: Record<string, number>;
  /** `started` false: the channel has not started (yet); `error` says why, `retryAt` when it is tried again. */
  channels: Array<{ name: string; state: string; detail?: string; started: boolean; error?: string; retryAt?: string }>;
  /** The configured backend and whether its claude binary runs (null until the first check ends). */
  agent: { backend: string; claude: ClaudeCheck | null };
  gatewayRssBytes: number;
  /** With a nodes section: each node, its state, projects and live sessions (agents on other machines). */
  nodes?: NodeStatus[];
}
