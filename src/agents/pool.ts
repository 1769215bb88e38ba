/**
 * Picks the session for a conversation: its live session if it has one; a new live session while
 * the registry has room; otherwise a one-shot session (no LRU eviction of someone else's process).
 * A one-shot conversation moves to a live session at its next idle turn once there is room again.
 */
import type { Logger } from '../ops/logger.js';
import type { SessionRegistry } from './registry.js';
import type { AgentSession } from './session.js';

export interface SessionFactory {
  /** A persistent session (claude-stream or claude-tmux), resuming sessionId when given. */
  live(conversationId: string, sessionId: string | undefined): AgentSession;
  /** A process-per-turn session, resuming sessionId when given. */
  oneShot(conversationId: string, sessionId: string | undefined): AgentSession;
}

export class AgentPool {
  private readonly oneShots = new Map<string, AgentSession>();

  constructor(
    private readonly registry: SessionRegistry,
    private readonly factory: SessionFactory,
    private readonly log: Logger,
  ) {}

  /** The session a new turn or steer for this conversation should use. liveAllowed=false forces one-shot (steering off). */
  sessionFor(conversationId: string, sessionId: string | undefined, liveAllowed: boolean): AgentSession {
    const live = this.registry.get(conversationId);
    if (live && live.state() !== 'stopped') return live;
    if (live) this.registry.remove(live);
    const oneShot = this.oneShots.get(conversationId);
    if (oneShot && (oneShot.state() === 'busy' || !liveAllowed || !this.registry.canStartLive())) return oneShot;
    if (liveAllowed && this.registry.canStartLive()) {
      if (oneShot) this.oneShots.delete(conversationId);
      const s = this.factory.live(conversationId, oneShot?.sessionId() ?? sessionId);
      this.registry.add(s);
      return s;
    }
    if (liveAllowed) this.log.info({ conversationId, maxLive: this.registry.limit() }, 'live-process cap reached: this conversation runs one-shot');
    const s = this.factory.oneShot(conversationId, sessionId);
    this.oneShots.set(conversationId, s);
    return s;
  }

  /** The session currently bound to a conversation, without creating one. */
  peek(conversationId: string): AgentSession | undefined {
    return this.registry.get(conversationId) ?? this.oneShots.get(conversationId);
  }

  /** Stops and forgets the conversation's session (e.g. /clear, /model). */
  async release(conversationId: string, reason: string): Promise<void> {
    await this.registry.stop(conversationId, reason);
    const o = this.oneShots.get(conversationId);
    this.oneShots.delete(conversationId);
    await o?.stop(reason);
  }

  /** Stops live sessions only (steering turned off), keeping one-shot ones. */
  async stopLive(reason: string): Promise<void> {
    await this.registry.stopAll(reason);
  }

  async stopAll(reason: string): Promise<void> {
    const all = [...this.oneShots.values()];
    this.oneShots.clear();
    await Promise.allSettled([this.registry.stopAll(reason), ...all.map((s) => s.stop(reason))]);
  }
}
