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
import { AgentSessionBase, settledWithin } from '../../agents/common/session-base.js';
import type {
  Capabilities,
  PermissionAnswer,
  SteerPromise,
  SteerResult,
  Turn,
  UserInput,
} from '../../agents/session.js';
import { steerNow, steerPromise } from '../../agents/session.js';
import { AGENT_TABLE } from '../../agents/table.js';
import type { NodeEvent } from '../wire.js';
import {
  type NodeLink,
  type Reach,
  type RemoteLaunch,
  reachNotice,
  reachText,
  unreachableError,
} from './remote-launch.js';
import { RemoteTurn } from './remote-turn.js';

/** Until the node's heartbeat says what its project's backend does: claude-stream's. */
const DEFAULT_CAPABILITIES: Capabilities = AGENT_TABLE['claude-stream'].capabilities;
/** Time beyond the interrupt grace for the interrupt to reach the node and its end to come back. */
const HOP_MARGIN_MS = 5_000;
const RECENT_TURNS = 50;

export class RemoteSession extends AgentSessionBase<RemoteTurn> {
  private sid: string | undefined;
  /** Turns not settled yet, oldest first. */
  private readonly live: RemoteTurn[] = [];
  /** Recently ended turns, so a late steer outcome or a redelivered event finds its turn. */
  private readonly recent = new Map<string, RemoteTurn>();
  private readonly steers = new Map<string, (r: SteerResult) => void>();
  private readonly reachListeners = new Set<() => void>();
  private readonly offs: Array<() => void>;
  /** Whether the node was reachable at the last change; undefined until the front has heard of it at all. */
  private reachable: boolean | undefined;

  constructor(
    private readonly launch: RemoteLaunch,
    private readonly link: NodeLink,
  ) {
    const reported = link.capabilities(launch.node, launch.project) ?? DEFAULT_CAPABILITIES;
    // Its turns go on on the node (reattach); the agent's own commands are the node's business, not the front's.
    const capabilities = { ...reported, clearContext: false, setModel: false, reattach: true };
    super(launch, `node:${launch.node}`, capabilities, { node: launch.node });
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

  protected inFlight(): boolean {
    return this.live.length > 0;
  }

  /**
   * Busy while a turn runs, and while a steer's outcome is on its way: the node may have run it as a
   * turn of its own (its turn had ended there), and the lane must not put it back in line meanwhile.
   */
  protected override busy(): boolean {
    return this.live.length > 0 || this.steers.size > 0;
  }

  /** The oldest turn not settled yet (the node may run one of its own after it). */
  override currentTurn(): Turn | undefined {
    return this.live[0];
  }

  override onReachable(listener: () => void): () => void {
    this.reachListeners.add(listener);
    return () => void this.reachListeners.delete(listener);
  }

  protected beginTurn(inputs: UserInput[], turnId?: string): Turn {
    const { conversationId, node, project } = this.launch;
    this.unreachableCheck();
    const turn = this.begin(
      inputs.map((i) => i.id),
      turnId,
    );
    this.link.send(node, {
      type: 'turn',
      conversationId,
      project,
      turnId: turn.id,
      inputs,
      sessionId: this.sid ?? null,
      ...(this.launch.model() ? { model: this.launch.model() } : {}),
    });
    return turn;
  }

  override reattach(t: { turnId: string; inputIds: string[] }): Turn {
    const turn = this.begin(t.inputIds, t.turnId);
    this.link.send(this.launch.node, { type: 'attach', conversationId: this.conversationId, ...t });
    return turn;
  }

  steer(input: UserInput): SteerPromise {
    if (this.stopped) return steerNow({ outcome: 'process-dead' });
    const r = this.link.reach(this.launch.node);
    if (!r.reachable) return steerNow({ outcome: 'process-dead' }, `unreachable: ${reachText(this.launch.node, r)}`);
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
    await settledWithin(turns, this.interruptGraceMs + HOP_MARGIN_MS);
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

  override async detach(reason: string): Promise<void> {
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
        if (applied && e.event.type === 'steer-absorbed') this.turns.steered(1);
        return;
      }
      case 'end': {
        if (e.sessionId) this.setSession(e.sessionId);
        if (e.result?.sessionId) this.setSession(e.result.sessionId);
        const i = this.live.findIndex((t) => t.id === e.turnId);
        if (i < 0) return;
        const [turn] = this.live.splice(i, 1);
        this.remember(turn!);
        this.turns.touch();
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
    this.turns.touch();
    this.turns.announce(turn);
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
    this.saveSessionId(id);
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
    if (!r.reachable) return this.tellTurns(reachNotice(this.launch.node, r));
    this.tellReachable();
    // A restarted node reports the turns it lost (each runs again, and the lane says so): no turn goes on there.
    if (r.restarted) return;
    // Back by an event: that event is used first, and a turn it ends (lost in a restart) is not said to go on.
    queueMicrotask(() => this.tellTurns(reachNotice(this.launch.node, r)));
  }

  private tellTurns(message: string): void {
    if (this.stopped) return;
    for (const t of this.live) t.emit({ type: 'status', message, notify: true, key: 'node-reach' });
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
    for (const t of this.live.splice(0)) t.fail(this.failure('AGENT_STOPPED', why, t.inputIds()));
  }
}
