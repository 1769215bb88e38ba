/**
 * Picks the session for a conversation: its registered session, or a new one. Every turn runs in
 * a session that can steer, be interrupted and relay permission requests; how many idle processes
 * stay warm between turns is the registry's business (steering.maxLive).
 */
import type { SessionRegistry } from './registry.js';
import type { AgentSession } from './session.js';

export interface SessionFactory {
  /** A persistent session (claude-stream or claude-tmux), resuming sessionId when given. */
  live(conversationId: string, sessionId: string | undefined): AgentSession;
}

export class AgentPool {
  constructor(
    private readonly registry: SessionRegistry,
    private readonly factory: SessionFactory,
  ) {}

  /** The session a new turn for this conversation should use. */
  sessionFor(conversationId: string, sessionId: string | undefined): AgentSession {
    const current = this.registry.get(conversationId);
    if (current && current.state() !== 'stopped') return current;
    if (current) this.registry.remove(current);
    const s = this.factory.live(conversationId, current?.sessionId() ?? sessionId);
    this.registry.add(s);
    return s;
  }

  /** The session currently bound to a conversation, without creating one. */
  peek(conversationId: string): AgentSession | undefined {
    return this.registry.get(conversationId);
  }

  /** Stops and forgets the conversation's session (e.g. /clear, /model). */
  async release(conversationId: string, reason: string): Promise<void> {
    await this.registry.stop(conversationId, reason);
  }

  async stopAll(reason: string): Promise<void> {
    await this.registry.stopAll(reason);
  }
}
