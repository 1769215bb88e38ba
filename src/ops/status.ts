/** The status report behind GET /api/status, `rudder status` and /status. */
import { createRequire } from 'node:module';
import type { GatewayCore } from '../gateway/core.js';
import { rssOf } from './proc.js';

export interface StatusReport {
  version: string;
  uptimeSeconds: number;
  /** maxLive: idle processes kept warm at most, and why that many; liveSessions: sessions with a process; warm: those idle. */
  steering: { on: boolean; reason: string | null; mode: string; maxLive: number; maxLiveWhy: string; liveSessions: number; warm: number };
  sessions: Array<{ conversationId: string; backend: string; pid: number | null; state: string; idleSeconds: number; rssBytes: number | null; steered: number; sessionId: string | null }>;
  queues: Array<{ conversationId: string; depth: number; inFlight: number; pausedUntil: string | null }>;
  owedReplies: number;
  messages: Record<string, number>;
  channels: Array<{ name: string; state: string; detail?: string }>;
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
      rssBytes: pid ? rssOf(pid) ?? null : null,
      steered: s.steeredCount(),
      sessionId: s.sessionId() ?? null,
    };
  });
  const queues = [...core.lanes.values()]
    .filter((l) => l.queueDepth() > 0 || l.inFlight.size > 0 || l.pausedUntil > Date.now())
    .map((l) => ({ conversationId: l.conversationId, depth: l.queueDepth(), inFlight: l.inFlight.size, pausedUntil: l.pausedUntil > Date.now() ? new Date(l.pausedUntil).toISOString() : null }));
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
    channels: [...core.channels.values()].map((c) => c.status()),
    gatewayRssBytes: process.memoryUsage.rss(),
  };
}
