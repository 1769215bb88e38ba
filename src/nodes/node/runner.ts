/**
 * What a node does with the front's commands: it runs the real agent sessions of its own projects
 * (the same launches and backends as the front's, with the node's own agent settings and
 * environment) and reports every turn back, event by event, with exactly one end per turn.
 *
 * A command is handled synchronously, in the order the stream gives them, and remembered by its
 * message id first, so a redelivery is done once. A turn names a project; one this node does not
 * have is refused (PROJECT_UNKNOWN), whatever the front sends: the directory and the settings
 * come from the node's config, never from the wire. A front turn that arrives while the agent
 * runs a turn of its own (a steer that became the next turn), or while a review action runs on the
 * conversation's tree here, waits for it, in order.
 */
import type { AgentPool } from '../../agents/pool.js';
import type { AgentSession, Turn, TurnResult } from '../../agents/session.js';
import { isRudderError, RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import { type Command, errorToWire, type NodeEvent, type WireError } from '../wire.js';
import type { NodeStore } from './node-store.js';

export interface RunnerDeps {
  node: string;
  store: Store;
  nodeStore: NodeStore;
  projects: Projects;
  pool: AgentPool;
  /** Publishes durably, in order; resolves once stored. */
  publish(e: NodeEvent): Promise<void>;
  /** The review action running on the conversation's tree here, if any: its turns wait for it (review.ts). */
  reviewing?(conversationId: string): string | undefined;
  log: Logger;
}

type TurnCommand = Extract<Command, { type: 'turn' }>;

export class NodeRunner {
  private readonly watched = new WeakSet<AgentSession>();
  /** Front turns waiting for the agent's own turn to end, per conversation, in order. */
  private readonly waiting = new Map<string, TurnCommand[]>();
  /** The node is stopping: a turn its stop cuts off is reported by the next start, as after a crash. */
  private shuttingDown = false;

  constructor(private readonly d: RunnerDeps) {}

  /** One command (already remembered by its message id). */
  handle(c: Command): void {
    switch (c.type) {
      case 'turn':
        return this.turn(c);
      case 'attach':
        return this.attach(c.conversationId, c.turnId, c.inputIds);
      case 'steer':
        return this.steer(c);
      case 'interrupt':
        return this.interrupt(c.conversationId, c.cancelQueued);
      case 'answer': {
        const ok = this.d.pool.peek(c.conversationId)?.answerPermission(c.requestId, c.answer) ?? false;
        if (!ok) this.d.log.info({ conversationId: c.conversationId, requestId: c.requestId }, 'answer came too late');
        return;
      }
      case 'release':
        this.dropWaiting(c.conversationId, `Stopped: ${c.reason}.`);
        void this.d.pool.release(c.conversationId, c.reason);
        return;
    }
  }

  stopping(): void {
    this.shuttingDown = true;
  }

  /** A turn of the conversation runs, starts or waits here: no review action may start on its tree. */
  busy(conversationId: string): boolean {
    if (this.waiting.has(conversationId) || this.d.pool.peek(conversationId)?.state() === 'busy') return true;
    return this.d.nodeStore.running().some((t) => t.conversationId === conversationId);
  }

  /** A review action on the conversation's tree ended: the turn that waited for it starts. */
  reviewed(conversationId: string): void {
    this.next(conversationId);
  }

  /** At start: every turn a previous run left in flight was cut off, every steer it held was not taken. */
  recover(): void {
    for (const t of this.d.nodeStore.running()) {
      const error = new RudderError('AGENT_CRASHED', `Node ${this.d.node} restarted in the middle of this turn.`, {
        conversationId: t.conversationId,
        unanswered: t.inputIds,
        node: this.d.node,
      });
      this.d.log.warn({ turnId: t.turnId, conversationId: t.conversationId }, 'a turn was cut off by a restart');
      this.end(t.conversationId, t.turnId, { error: errorToWire(error) }, this.sessionOf(t.conversationId));
    }
    for (const s of this.d.nodeStore.pendingSteers()) this.steerSettled(s.conversationId, s.inputId, 'process-dead');
  }

  private turn(c: TurnCommand): void {
    if (this.d.nodeStore.turn(c.turnId)) return;
    this.d.nodeStore.turnStarted(
      c.turnId,
      c.conversationId,
      c.inputs.map((i) => i.id),
    );
    const project = this.d.projects.find(c.project);
    if (!project || project.node) {
      const names = this.d.projects.set().projects.map((p) => p.name);
      const err = new RudderError(
        'PROJECT_UNKNOWN',
        `Node ${this.d.node} has no project "${c.project}" (its projects: ${names.join(', ')}).`,
        { conversationId: c.conversationId, unanswered: c.inputs.map((i) => i.id) },
      );
      this.d.log.warn({ conversationId: c.conversationId, project: c.project }, 'refused a turn for another project');
      return this.end(c.conversationId, c.turnId, { error: errorToWire(err) }, null);
    }
    const queue = this.waiting.get(c.conversationId);
    if (queue) return void queue.push(c);
    const action = this.d.reviewing?.(c.conversationId);
    if (action) {
      this.d.log.info(
        { conversationId: c.conversationId, turnId: c.turnId, action },
        'the turn waits for a review action',
      );
      return void this.waiting.set(c.conversationId, [c]);
    }
    this.start(c);
  }

  private start(c: TurnCommand): void {
    let session: AgentSession;
    try {
      session = this.bind(c);
    } catch (err) {
      return this.failStart(c, err);
    }
    if (session.state() === 'busy') return this.waitFirst(c);
    try {
      session.startTurn({ inputs: c.inputs, turnId: c.turnId });
    } catch (err) {
      if (isRudderError(err, 'AGENT_BUSY')) return this.waitFirst(c);
      this.failStart(c, err);
    }
  }

  /** The agent runs a turn of its own (or a message is on its way to it): this one waits, first in line. */
  private waitFirst(c: TurnCommand): void {
    this.d.log.debug({ conversationId: c.conversationId, turnId: c.turnId }, 'a front turn waits for the agent');
    const queue = this.waiting.get(c.conversationId);
    if (queue) queue.unshift(c);
    else this.waiting.set(c.conversationId, [c]);
  }

  private failStart(c: TurnCommand, err: unknown): void {
    const e = isRudderError(err) ? err : new RudderError('AGENT_SPAWN_FAILED', String(err));
    e.context.unanswered ??= c.inputs.map((i) => i.id);
    this.end(c.conversationId, c.turnId, { error: errorToWire(e) }, null);
  }

  /** The conversation's record here follows the front's: its project, the session to resume, its model. */
  private bind(c: TurnCommand): AgentSession {
    const { store, pool } = this.d;
    const id = c.conversationId;
    this.own(id, c.project);
    const live = pool.peek(id);
    const conv = store.conversation(id)!;
    if ((!live || live.state() === 'stopped') && (conv.sessionId ?? null) !== c.sessionId)
      store.setSessionId(id, c.sessionId);
    if ((conv.model ?? null) !== (c.model ?? null)) store.setModel(id, c.model ?? null);
    const session = pool.sessionFor(id, c.sessionId ?? undefined);
    this.watch(session);
    return session;
  }

  /** The conversation's record here, in the project the front names (its key split as the front's is). */
  own(conversationId: string, project: string): void {
    const { store, projects } = this.d;
    const at = conversationId.indexOf(':');
    const [channel, key] =
      at > 0 ? [conversationId.slice(0, at), conversationId.slice(at + 1)] : ['node', conversationId];
    store.ensureConversation(conversationId, channel, key);
    if (store.conversation(conversationId)?.project !== project) projects.bind(conversationId, project);
  }

  /** Opens the conversation's session now and reports its turns: an attached pane's, typed in the terminal. */
  followSession(conversationId: string): void {
    const conv = this.d.store.conversation(conversationId);
    this.watch(this.d.pool.sessionFor(conversationId, conv?.sessionId ?? undefined));
  }

  private watch(session: AgentSession): void {
    if (this.watched.has(session)) return;
    this.watched.add(session);
    session.onTurn((turn) => this.follow(session, turn));
  }

  /** Every turn of a session, the front's and the agent's own: announced, its events numbered, its one end. */
  private follow(session: AgentSession, turn: Turn): void {
    const conversationId = session.conversationId;
    const turnId = turn.id;
    this.d.nodeStore.turnStarted(turnId, conversationId, turn.inputIds());
    void this.d.publish({
      type: 'turn',
      conversationId,
      turnId,
      inputIds: turn.inputIds(),
      sessionId: session.sessionId() ?? null,
    });
    let seq = 0;
    turn.onEvent((e) => {
      if (e.type === 'result') return this.end(conversationId, turnId, { result: e.result }, session);
      if (e.type === 'error') return this.end(conversationId, turnId, { error: errorToWire(e.error) }, session);
      if (e.type === 'steer-absorbed') this.d.nodeStore.turnInputs(turnId, turn.inputIds());
      void this.d.publish({ type: 'event', conversationId, turnId, seq: ++seq, event: e });
    });
  }

  private end(
    conversationId: string,
    turnId: string,
    outcome: { result?: TurnResult; error?: WireError },
    session: AgentSession | null | undefined,
  ): void {
    if (this.shuttingDown && outcome.error?.code === 'AGENT_STOPPED') {
      this.d.log.info({ conversationId, turnId }, 'turn cut off by the stop of the node: the next start reports it');
      return;
    }
    const sessionId = session?.sessionId() ?? this.d.store.conversation(conversationId)?.sessionId ?? null;
    void this.d
      .publish({ type: 'end', conversationId, turnId, ...outcome, sessionId })
      .then(() => this.d.nodeStore.turnEnded(turnId));
    setImmediate(() => this.next(conversationId));
  }

  /** The next front turn that waited for the agent's own turn. */
  private next(conversationId: string): void {
    const queue = this.waiting.get(conversationId);
    if (!queue) return;
    const session = this.d.pool.peek(conversationId);
    if (session?.state() === 'busy' || this.d.reviewing?.(conversationId)) return;
    const c = queue.shift();
    if (!queue.length) this.waiting.delete(conversationId);
    if (c) this.start(c);
  }

  private attach(conversationId: string, turnId: string, inputIds: string[]): void {
    if (this.d.nodeStore.turn(turnId)) return;
    // The front had recorded the turn but it never got here (the front stopped before sending it).
    this.d.nodeStore.turnStarted(turnId, conversationId, inputIds);
    const err = new RudderError('AGENT_CRASHED', `Node ${this.d.node} never received this turn.`, {
      conversationId,
      unanswered: inputIds,
    });
    this.end(conversationId, turnId, { error: errorToWire(err) }, null);
  }

  private steer(c: Extract<Command, { type: 'steer' }>): void {
    const { conversationId, input } = c;
    this.d.nodeStore.steerTaken(input.id, conversationId);
    const session = this.d.pool.peek(conversationId);
    if (!session || session.state() === 'stopped' || this.waiting.has(conversationId))
      return this.steerSettled(conversationId, input.id, 'process-dead');
    session
      .steer(input)
      .then(
        (r) =>
          this.steerSettled(conversationId, input.id, r.outcome, r.outcome === 'process-dead' ? undefined : r.turn.id),
        () => this.steerSettled(conversationId, input.id, 'process-dead'),
      )
      // A steer that settles may leave the agent idle with no turn ending (dropped on its way): look at the line.
      .finally(() => setImmediate(() => this.next(conversationId)));
  }

  private steerSettled(
    conversationId: string,
    inputId: string,
    outcome: 'steered' | 'ran-as-turn' | 'process-dead',
    turnId?: string,
  ): void {
    void this.d
      .publish({ type: 'steer', conversationId, inputId, outcome, ...(turnId ? { turnId } : {}) })
      .then(() => this.d.nodeStore.steerSettled(inputId));
  }

  private interrupt(conversationId: string, cancelQueued: boolean): void {
    if (cancelQueued) this.dropWaiting(conversationId, 'Stopped on request.');
    void this.d.pool
      .peek(conversationId)
      ?.interrupt({ cancelQueued })
      .catch((err: Error) => this.d.log.warn({ conversationId, err: err.message }, 'interrupt failed'));
  }

  /** Front turns still waiting end as stopped: a stop or a release ended them before they began. */
  private dropWaiting(conversationId: string, why: string): void {
    const queue = this.waiting.get(conversationId) ?? [];
    this.waiting.delete(conversationId);
    for (const c of queue) {
      const err = new RudderError('AGENT_STOPPED', why, { conversationId, unanswered: c.inputs.map((i) => i.id) });
      this.end(conversationId, c.turnId, { error: errorToWire(err) }, null);
    }
  }

  private sessionOf(conversationId: string): AgentSession | undefined {
    return this.d.pool.peek(conversationId);
  }
}
