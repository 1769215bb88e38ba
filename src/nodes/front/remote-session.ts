/**
 * A conversation whose project lives on a node, as the front's lane sees it: an AgentSession like
 * any other. Turns, steers, stops and permission answers go to the node as commands; its events
 * (turn steps, steer outcomes, each turn's one end) come back and drive the same Turn handles a
 * local backend returns. The real session runs on the node (node/runner.ts).
 *
 * Reachability: while the node is lost (no heartbeat for nodes.lostAfterSeconds), startTurn throws
 * AGENT_UNREACHABLE and a steer is not handed over, so the lane holds the messages; a running
 * turn is told about it (and told again when the node is back), and goes on when it is.
 * Ordering: everything here runs on the event loop in the order the node's events arrive.
 */
import { randomUUID } from 'node:crypto';
import {
  type AgentSession,
  type Capabilities,
  type PermissionAnswer,
  type SessionState,
  type SteerPromise,
  type SteerResult,
  steerPromise,
  type Turn,
  type TurnInput,
  type UserInput,
} from '../../agents/session.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { NodeEvent } from '../wire.js';
import {
  type NodeLink,
  type Reach,
  type RemoteLaunch,
  reachNotice,
  reachText,
  unreachableError,
} from './remote-launch.js';
import { RemoteTurn, settledWithin } from './remote-turn.js';

/** Until the node's heartbeat says what its project's backend does: claude-stream's. */
const DEFAULT_CAPABILITIES: Capabilities = { steer: 'tool-boundary', interrupt: true, resume: true };
/** Time beyond the interrupt grace for the interrupt to reach the node and its end to come back. */
const HOP_MARGIN_MS = 5_000;
const RECENT_TURNS = 50;

export class RemoteSession implements AgentSession {
  readonly backend: string;
  readonly capabilities: Capabilities;
  readonly conversationId: string;
  private readonly log: Logger;
  private sid: string | undefined;
  private stopped = false;
  private lastActive = Date.now();
  private steeredTotal = 0;
  /** Turns not settled yet, oldest first. */
  private readonly live: RemoteTurn[] = [];
  /** Recently ended turns, so a late steer outcome or a redelivered event finds its turn. */
  private readonly recent = new Map<string, RemoteTurn>();
  private readonly steers = new Map<string, (r: SteerResult) => void>();
  private readonly turnListeners = new Set<(t: Turn) => void>();
  private readonly reachListeners = new Set<() => void>();
  private readonly offs: Array<() => void>;
  /** Whether the node was reachable at the last change; undefined until the front has heard of it at all. */
  private reachable: boolean | undefined;

  constructor(
    private readonly launch: RemoteLaunch,
    private readonly link: NodeLink,
  ) {
    this.conversationId = launch.conversationId;
    this.backend = `node:${launch.node}`;
    this.capabilities = { ...(link.capabilities(launch.node, launch.project) ?? DEFAULT_CAPABILITIES), reattach: true };
    this.log = launch.logger.child({ conversationId: launch.conversationId, node: launch.node });
    this.sid = launch.sessionId;
    const r = link.reach(launch.node);
    this.reachable = r.reachable || r.lastSeenAt !== undefined ? r.reachable : undefined;
    this.offs = [link.register(this), link.onReach(launch.node, (r) => this.reachChanged(r))];
  }

  sessionId(): string | undefined {
    return this.sid;
  }

  /** The agent's process runs on the node: none here. */
  pid(): number | undefined {
    return undefined;
  }

  /**
   * Busy while a turn runs, and while a steer's outcome is on its way: the node may have run it as a
   * turn of its own (its turn had ended there), and the lane must not put it back in line meanwhile.
   */
  state(): SessionState {
    if (this.stopped) return 'stopped';
    return this.live.length || this.steers.size ? 'busy' : 'idle';
  }

  lastActiveAt(): number {
    return this.lastActive;
  }

  steeredCount(): number {
    return this.steeredTotal;
  }

  currentTurn(): Turn | undefined {
    return this.live[0];
  }

  onTurn(listener: (turn: Turn) => void): () => void {
    this.turnListeners.add(listener);
    return () => void this.turnListeners.delete(listener);
  }

  onReachable(listener: () => void): () => void {
    this.reachListeners.add(listener);
    return () => void this.reachListeners.delete(listener);
  }

  startTurn(input: TurnInput): Turn {
    const { conversationId, node, project } = this.launch;
    if (this.stopped) throw new RudderError('AGENT_STOPPED', undefined, { conversationId });
    if (this.live.length) throw new RudderError('AGENT_BUSY', undefined, { conversationId });
    this.unreachableCheck();
    const turn = this.begin(
      input.inputs.map((i) => i.id),
      input.turnId,
    );
    this.link.send(node, {
      type: 'turn',
      conversationId,
      project,
      turnId: turn.id,
      inputs: input.inputs,
      sessionId: this.sid ?? null,
      ...(this.launch.model() ? { model: this.launch.model() } : {}),
    });
    return turn;
  }

  reattach(t: { turnId: string; inputIds: string[] }): Turn {
    const turn = this.begin(t.inputIds, t.turnId);
    this.link.send(this.launch.node, { type: 'attach', conversationId: this.conversationId, ...t });
    return turn;
  }

  steer(input: UserInput): SteerPromise {
    if (this.stopped) return steerPromise(Promise.resolve({ outcome: 'process-dead' }), false);
    const r = this.link.reach(this.launch.node);
    if (!r.reachable)
      return steerPromise(
        Promise.resolve({ outcome: 'process-dead' }),
        false,
        `unreachable: ${reachText(this.launch.node, r)}`,
      );
    const outcome = new Promise<SteerResult>((resolve) => this.steers.set(input.id, resolve));
    this.link.send(this.launch.node, { type: 'steer', conversationId: this.conversationId, input });
    return steerPromise(outcome, true);
  }

  async interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    const turns = [...this.live];
    this.link.send(this.launch.node, {
      type: 'interrupt',
      conversationId: this.conversationId,
      cancelQueued: !!opts.cancelQueued,
      nonce: randomUUID(),
    });
    await settledWithin(turns, this.launch.interruptGraceMs + HOP_MARGIN_MS);
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    const turn = this.live.find((t) => t.open.has(requestId));
    if (!turn) return false;
    turn.open.delete(requestId);
    this.link.send(this.launch.node, { type: 'answer', conversationId: this.conversationId, requestId, answer });
    return true;
  }

  async stop(reason: string): Promise<void> {
    if (this.stopped) return;
    this.link.send(this.launch.node, {
      type: 'release',
      conversationId: this.conversationId,
      reason,
      nonce: randomUUID(),
    });
    this.letGo(`Stopped: ${reason}.`);
  }

  async detach(reason: string): Promise<void> {
    if (this.stopped) return;
    this.log.info(
      { turns: this.live.length, reason },
      'letting go of the remote session; its turn goes on on the node',
    );
    this.letGo(`Rudder stopped (${reason}); the turn goes on on node ${this.launch.node}.`);
  }

  /** An event of the node about this conversation (routed here by the front, in order). */
  deliver(e: NodeEvent): void {
    if (this.stopped) return;
    switch (e.type) {
      case 'turn': {
        if (e.sessionId) this.setSession(e.sessionId);
        const known = this.find(e.turnId);
        if (known) known.addInputs(e.inputIds);
        // A turn the agent started on its own (a steer that ran as the next turn): followed like any other.
        else if (!this.link.turnEnded(e.turnId)) this.begin(e.inputIds, e.turnId);
        return;
      }
      case 'event': {
        const applied = this.find(e.turnId)?.apply(e.seq, e.event);
        if (applied && e.event.type === 'steer-absorbed') this.steeredTotal++;
        return;
      }
      case 'end': {
        if (e.sessionId) this.setSession(e.sessionId);
        if (e.result?.sessionId) this.setSession(e.result.sessionId);
        const i = this.live.findIndex((t) => t.id === e.turnId);
        if (i < 0) return;
        const [turn] = this.live.splice(i, 1);
        this.remember(turn!);
        this.lastActive = Date.now();
        turn!.end(e.result, e.error);
        return;
      }
      case 'steer': {
        const settle = this.steers.get(e.inputId);
        if (!settle) return;
        this.steers.delete(e.inputId);
        if (e.outcome === 'process-dead' || !e.turnId) return settle({ outcome: 'process-dead' });
        const turn = this.find(e.turnId) ?? this.begin([e.inputId], e.turnId);
        return settle({ outcome: e.outcome, turn });
      }
    }
  }

  private begin(inputIds: string[], turnId?: string): RemoteTurn {
    const turn = new RemoteTurn(inputIds, turnId);
    this.live.push(turn);
    this.lastActive = Date.now();
    queueMicrotask(() => {
      for (const l of this.turnListeners) l(turn);
    });
    return turn;
  }

  private find(turnId: string): RemoteTurn | undefined {
    return this.live.find((t) => t.id === turnId) ?? this.recent.get(turnId);
  }

  private remember(turn: RemoteTurn): void {
    this.recent.set(turn.id, turn);
    if (this.recent.size > RECENT_TURNS) this.recent.delete(this.recent.keys().next().value!);
  }

  private setSession(id: string): void {
    if (id === this.sid) return;
    this.sid = id;
    try {
      this.launch.onSessionId(id);
    } catch (err) {
      this.log.error({ err }, 'persisting the session id failed');
    }
  }

  private unreachableCheck(): void {
    const r = this.link.reach(this.launch.node);
    if (!r.reachable) throw unreachableError(this.conversationId, this.launch.node, r);
  }

  private reachChanged(r: Reach): void {
    if (r.reachable === this.reachable || this.stopped) return;
    const known = this.reachable !== undefined;
    this.reachable = r.reachable;
    // First news of a node the front had not heard from since it started: nothing changed for the person.
    if (!known && r.reachable) return void this.tellReachable();
    const message = reachNotice(this.launch.node, r);
    for (const t of this.live) t.emit({ type: 'status', message, notify: true, key: 'node-reach' });
    if (r.reachable) this.tellReachable();
  }

  private tellReachable(): void {
    for (const l of this.reachListeners) l();
  }

  /** Stops following: running turns fail here with AGENT_STOPPED, steers not answered are handed back. */
  private letGo(why: string): void {
    this.stopped = true;
    for (const off of this.offs) off();
    for (const settle of this.steers.values()) settle({ outcome: 'process-dead' });
    this.steers.clear();
    for (const t of this.live.splice(0))
      t.fail(new RudderError('AGENT_STOPPED', why, { conversationId: this.conversationId, unanswered: t.inputIds() }));
  }
}
