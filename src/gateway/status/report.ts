/**
 * The status report behind GET /api/status, `rudder status` and `rudder doctor`: a read model of
 * the running gateway (sessions, queues, the store's counts, channels, today's costs and budgets, the agents'
 * binaries, the schedules).
 */

import type { BinaryCheck } from '../../agents/common/binary-check.js';
import type { SharedProcessStatus } from '../../agents/common/process-status.js';
import type { AgentChecks } from '../../agents/health.js';
import type { SessionRegistry } from '../../agents/registry.js';
import type { LiveConfig } from '../../config/load.js';
import { rssOf } from '../../ops/proc.js';
import { VERSION } from '../../ops/version.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import type { Budgets } from '../budget/budgets.js';
import type { ChannelStartState } from '../channel-start.js';
import type { Chats } from '../chats.js';
import type { Conversations } from '../conversations/conversations.js';
import type { ScheduleStatus } from '../jobs/types.js';
import { costReport } from './cost-report.js';
import type { NodeStatus, StatusReport } from './report-types.js';

export type { StatusReport };

export interface StatusReportDeps {
  config: LiveConfig;
  store: Store;
  registry: SessionRegistry;
  conversations: Conversations;
  projects: Projects;
  chats: Chats;
  channelStarts: { state(name: string): ChannelStartState | undefined };
  /** The binaries of the agents the conversations run on. */
  agents: { current(): AgentChecks };
  /** The agent processes conversations share (Codex's app-servers, the ACP agents). */
  shared(): SharedProcessStatus[];
  budgets: Budgets;
  /** Whether a spare process is kept, and why. */
  spare(): { on: boolean; why: string };
  /** The nodes (nodes.*), when there are any. */
  nodes?(): NodeStatus[];
  /** Each schedule's next run, last run and newest problem (gateway/jobs/schedules.ts). */
  schedules(): ScheduleStatus[];
}

const started = Date.now();

export class StatusReporter {
  constructor(private readonly d: StatusReportDeps) {}

  report(): StatusReport {
    const { store, config } = this.d;
    const cfg = config.current();
    const now = Date.now();
    const sessions = this.sessions(now);
    return {
      version: VERSION,
      uptimeSeconds: Math.round((now - started) / 1000),
      steering: this.steering(sessions.filter((s) => s.pid !== null).length),
      sessions,
      queues: this.queues(now),
      owedReplies: store.owedCount(),
      messages: store.countsByState(),
      channels: this.channels(),
      cost: costReport(this.d),
      agent: this.agent(cfg.agent.backend),
      gatewayRssBytes: process.memoryUsage.rss(),
      ...(this.d.nodes ? { nodes: this.d.nodes() } : {}),
      schedules: this.d.schedules(),
    };
  }

  private agent(backend: string): StatusReport['agent'] {
    const checks = this.d.agents.current();
    const binaries = Object.fromEntries(Object.entries(checks).filter((e): e is [string, BinaryCheck] => !!e[1]));
    return { backend, claude: checks.claude ?? null, codex: checks.codex ?? null, binaries, shared: this.d.shared() };
  }

  private steering(liveSessions: number): StatusReport['steering'] {
    const { conversations, registry, config } = this.d;
    const steering = conversations.steering();
    const cap = conversations.warmCap();
    const spare = this.d.spare();
    return {
      on: steering.on,
      reason: steering.reason ?? null,
      mode: config.current().steering.mode,
      maxLive: cap.maxLive,
      maxLiveWhy: cap.why,
      liveSessions,
      warm: registry.idleWarm().length,
      spareProcess: spare.on,
      spareProcessWhy: spare.why,
    };
  }

  private sessions(now: number): StatusReport['sessions'] {
    return this.d.registry.sessions().map((s) => {
      const pid = s.pid();
      return {
        conversationId: s.conversationId,
        backend: s.backend,
        pid: pid ?? null,
        state: s.state(),
        idleSeconds: s.state() === 'busy' ? 0 : Math.round((now - s.lastActiveAt()) / 1000),
        rssBytes: pid ? (rssOf(pid) ?? null) : null,
        steered: s.steeredCount(),
        sessionId: s.sessionId() ?? null,
        project: this.d.projects.peek(s.conversationId).name,
      };
    });
  }

  /**
   * The lanes with something waiting, in flight or held. A lane whose project lives on a node that is lost waits
   * for it (agent-unreachable) even before a start was refused: its turn in flight goes on only when it is back.
   */
  private queues(now: number): StatusReport['queues'] {
    const lost = new Set((this.d.nodes?.() ?? []).filter((n) => n.state === 'lost').map((n) => n.name));
    const onLost = (id: string) => {
      const node = lost.size ? this.d.projects.peek(id).node : undefined;
      return node !== undefined && lost.has(node);
    };
    return this.d.conversations
      .lanes()
      .map((l) => ({ id: l.conversationId, snap: l.snapshot(now) }))
      .filter(({ snap }) => snap.depth > 0 || snap.inFlight > 0 || snap.held)
      .map(({ id, snap }) => ({
        conversationId: id,
        depth: snap.depth,
        inFlight: snap.inFlight,
        pausedUntil: snap.held ? new Date(snap.held.until).toISOString() : null,
        pausedFor: snap.held?.why ?? (onLost(id) ? 'agent-unreachable' : null),
      }));
  }

  private channels(): StatusReport['channels'] {
    return this.d.chats.all().map((c) => {
      const start = this.d.channelStarts.state(c.name);
      const status = c.status();
      // The web channel starts before the others or not at all; a channel the starter never saw was started by
      // the caller.
      if (!start) return { ...status, started: status.state !== 'stopped' };
      return {
        ...status,
        started: start.started,
        ...(start.error ? { error: start.error } : {}),
        ...(start.retryAt ? { retryAt: new Date(start.retryAt).toISOString() } : {}),
      };
    });
  }
}
