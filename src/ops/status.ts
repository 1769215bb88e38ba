/** The status report behind GET /api/status, `rudder status` and /status. */
import { createRequire } from 'node:module';
import type { ClaudeCheck } from '../agents/claude/health.js';
import type { GatewayCore } from '../gateway/core.js';
import { rssOf } from './proc.js';

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
}

export const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
const started = Date.now();

export function statusReport(core: GatewayCore): StatusReport {
  const steering = core.steering();
  const cfg = core.settings();
  const cap = core.warmCap();
  const sessions = core.registry.sessions().map((s) => {
    const pid = s.pid();
    return {
      conversationId: s.conversationId,
      backend: s.backend,
      pid: pid ?? null,
      state: s.state(),
      idleSeconds: s.state() === 'busy' ? 0 : Math.round((Date.now() - s.lastActiveAt()) / 1000),
      rssBytes: pid ? (rssOf(pid) ?? null) : null,
      steered: s.steeredCount(),
      sessionId: s.sessionId() ?? null,
      project: core.projects.peek(s.conversationId).name,
    };
  });
  const queues = [...core.lanes.values()]
    .filter((l) => l.queueDepth() > 0 || l.inFlight.size > 0 || l.pausedUntil > Date.now())
    .map((l) => ({
      conversationId: l.conversationId,
      depth: l.queueDepth(),
      inFlight: l.inFlight.size,
      pausedUntil: l.pausedUntil > Date.now() ? new Date(l.pausedUntil).toISOString() : null,
    }));
  return {
    version: VERSION,
    uptimeSeconds: Math.round((Date.now() - started) / 1000),
    steering: {
      on: steering.on,
      reason: steering.reason ?? null,
      mode: cfg.steering.mode,
      maxLive: cap.maxLive,
      maxLiveWhy: cap.why,
      liveSessions: sessions.filter((s) => s.pid !== null).length,
      warm: core.registry.idleWarm().length,
    },
    sessions,
    queues,
    owedReplies: core.store.owedCount(),
    messages: core.store.countsByState(),
    channels: [...core.channels.values()].map((c) => {
      const start = core.channelStarts?.state(c.name);
      const status = c.status();
      // The web channel starts before the others or not at all; a channel the starter never saw was started by the
      // caller.
      if (!start) return { ...status, started: status.state !== 'stopped' };
      return {
        ...status,
        started: start.started,
        ...(start.error ? { error: start.error } : {}),
        ...(start.retryAt ? { retryAt: new Date(start.retryAt).toISOString() } : {}),
      };
    }),
    agent: { backend: cfg.agent.backend, claude: core.claudeHealth?.current() ?? null },
    gatewayRssBytes: process.memoryUsage.rss(),
  };
}
