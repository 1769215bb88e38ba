/**
 * Picks the session for a conversation: its registered session, or a new one. Every turn runs in
 * a session that can steer, be interrupted and relay permission requests; how many idle processes
 * stay warm between turns is the registry's business (steering.maxLive): a session handed out here is
 * promised to the turn about to start, so the warm cap leaves it alone until that turn begins.
 */
import { RudderError } from '../errors.js';
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
    /** How a conversation is named to a person (its title); its id when not given. */
    private readonly nameOf: (conversationId: string) => string = (id) => id,
  ) {}

  /**
   * The session a new turn for this conversation should use. Throws SESSION_HELD when the Claude
   * Code session it would resume is live in another conversation: one session, one process.
   */
  sessionFor(conversationId: string, sessionId: string | undefined): AgentSession {
    const current = this.registry.get(conversationId);
    if (current && current.state() !== 'stopped') {
      this.registry.promise(current);
      return current;
    }
    if (current) this.registry.remove(current);
    const resume = current?.sessionId() ?? sessionId;
    const holder = resume ? this.registry.holderOf(resume, conversationId) : undefined;
    if (holder)
      throw new RudderError(
        'SESSION_HELD',
        `Session ${resume} is open in conversation ${this.nameOf(holder.conversationId)}. Send /clear here to ` +
          'start a new session, or /resume it with --force.',
        { conversationId, holder: holder.conversationId, sessionId: resume },
      );
    const s = this.factory.live(conversationId, resume);
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
