/**
 * Messages sent while a turn runs, through turn/steer with expectedTurnId. Observed on 0.171: a
 * steer is refused until turn/started ("no active turn to steer" right after turn/start), so it
 * waits for that; once accepted, codex takes it in at the next sampling (the userMessage item with
 * its client id says when: then it is `steered`); a steer refused because the turn just ended, or
 * accepted but dropped by the turn's end (codex drops pending input on an interrupt), runs as the
 * next turn (`ran-as-turn`), never twice. Every method runs inside the session's turn lock.
 */
import { type ErrorCode, RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import { agentText } from '../../common/agent-text.js';
import type { TurnLock } from '../../common/turn-lock.js';
import type { TurnSlot } from '../../common/turn-slot.js';
import type { UserInput } from '../../session.js';
import { textInput } from '../protocol/index.js';
import type { AppServer } from '../server/app-server.js';
import { CodexRpcError } from '../server/rpc.js';
import { encodeClientId } from './client-id.js';
import type { CodexTurn, SteerMsg } from './codex-turn.js';

/** Why a steer ran as the next turn: on Codex only a turn that ended first keeps a message out of it. */
export const RAN_AS_TURN_WHY = 'the turn had ended before Codex took it in';

export interface SteerHooks {
  conversationId: string;
  lock: TurnLock;
  log: Logger;
  server(): AppServer | undefined;
  threadId(): string | undefined;
  /** The session's running turn; steers taken in are counted there. */
  turns: TurnSlot<CodexTurn>;
  stopped(): boolean;
  /** Starts a turn for steers put back; called only while nothing runs. */
  beginTurn(inputs: UserInput[]): CodexTurn;
}

/** The messages sent mid-turn that codex has not taken in yet, and those put back to run as the next turn. */
export class PendingSteers {
  private readonly open = new Map<string, SteerMsg>();
  /** Put back: they run as the next turn. */
  private readonly next: SteerMsg[] = [];

  constructor(private readonly h: SteerHooks) {}

  /** Steers waiting to run as the next turn (the session counts as busy meanwhile). */
  waiting(): number {
    return this.next.length;
  }

  /**
   * Steers whose turn/steer codex has not answered yet: the session counts as busy meanwhile, since
   * the answer decides whether they were taken in or run as the next turn (the gateway must not
   * take them for lost and hand them over again).
   */
  sending(): number {
    let n = 0;
    for (const m of this.open.values()) if (m.state === 'sending') n++;
    return n;
  }

  /** A message for the running turn; settle is called when it is taken in, runs as a turn, or is lost. */
  add(input: UserInput, turn: CodexTurn, settle: SteerMsg['settle']): SteerMsg {
    const msg = this.queue(input, turn, settle);
    turn.steers.push(msg);
    if (turn.open) this.send(msg, turn);
    return msg;
  }

  /** A message for the next turn, which steers put back are about to start: it runs with them, after them. */
  later(input: UserInput, settle: SteerMsg['settle']): void {
    this.next.push(this.queue(input, undefined, settle));
    queueMicrotask(() => this.h.lock.run(() => this.drain()));
  }

  /** The turn opened (turn/started): what waited for it goes now. */
  opened(turn: CodexTurn): void {
    for (const msg of turn.steers) if (msg.target === turn && msg.state === 'queued') this.send(msg, turn);
  }

  /** A userMessage item with a client id came in `turn`; true when it was one of these steers. */
  absorbed(clientId: string, turn: CodexTurn): boolean {
    const msg = this.open.get(clientId);
    if (!msg) return false;
    this.open.delete(clientId);
    msg.state = 'settled';
    turn.addInputs([msg.input.id]);
    if (turn === msg.writtenDuring) {
      turn.steered++;
      this.h.turns.steered(1);
      turn.emit({ type: 'steer-absorbed', inputId: msg.input.id });
      msg.settle.resolve({ outcome: 'steered', turn });
    } else {
      msg.settle.resolve({ outcome: 'ran-as-turn', turn, why: RAN_AS_TURN_WHY });
    }
    return true;
  }

  /**
   * The turn ended. What it did not take in runs as the next turn, unless the turn was stopped
   * with its queue (/stop: withdrawn) or failed (lost with the turn's error: the lane runs it
   * again). A steer whose turn/steer is still on its way is decided by the answer.
   */
  turnEnded(turn: CodexTurn, end: { cancel: boolean; failed?: RudderError }): void {
    for (const msg of turn.steers) {
      if (msg.target !== turn) continue;
      if (msg.state === 'sending' && end.cancel) msg.cancelled = true;
      if (msg.state !== 'queued' && msg.state !== 'accepted') continue;
      if (end.cancel)
        this.lose(msg, 'AGENT_STOPPED', 'The message was withdrawn by a stop before the agent took it in.');
      else if (end.failed)
        this.lose(msg, end.failed.code, `The turn failed before the agent took it in: ${end.failed.message}`);
      else this.putBack(msg);
    }
    if (end.cancel)
      for (const msg of this.next.splice(0))
        this.lose(msg, 'AGENT_STOPPED', 'The message was withdrawn by a stop before the agent took it in.');
  }

  /** Starts the next turn with the steers put back, when nothing runs. */
  drain(): void {
    if (this.h.turns.current || this.next.length === 0 || this.h.stopped()) return;
    const msgs = this.next.splice(0);
    const turn = this.h.beginTurn(msgs.map((m) => m.input));
    for (const m of msgs) {
      this.open.delete(m.clientId);
      m.state = 'settled';
      m.target = turn;
      m.settle.resolve({ outcome: 'ran-as-turn', turn, why: RAN_AS_TURN_WHY });
    }
  }

  /** Everything not taken in is lost (the server died, the session stopped). */
  dropAll(code: ErrorCode, detail: string): void {
    for (const msg of [...this.open.values()]) this.lose(msg, code, detail);
    this.next.length = 0;
  }

  /** A new message, queued for the turn it was sent during (none: the next one), and open until settled. */
  private queue(input: UserInput, during: CodexTurn | undefined, settle: SteerMsg['settle']): SteerMsg {
    const clientId = encodeClientId([input.id]);
    const msg: SteerMsg = { clientId, input, writtenDuring: during, target: during, state: 'queued', settle };
    this.open.set(clientId, msg);
    return msg;
  }

  private send(msg: SteerMsg, turn: CodexTurn): void {
    const server = this.h.server();
    const threadId = this.h.threadId();
    msg.target = turn;
    if (!server || !threadId || !turn.codexTurnId) {
      this.putBack(msg);
      return;
    }
    msg.state = 'sending';
    server
      .request('turn/steer', {
        threadId,
        clientUserMessageId: msg.clientId,
        input: [textInput(agentText([msg.input]))],
        expectedTurnId: turn.codexTurnId,
      })
      .then(
        () =>
          this.h.lock.run(() => {
            if (msg.state !== 'sending') return;
            msg.state = 'accepted';
            if (msg.cancelled)
              this.lose(msg, 'AGENT_STOPPED', 'The message was withdrawn by a stop before the agent took it in.');
            // Accepted by a turn that ended without taking it in: codex dropped it.
            else if (turn.isSettled()) this.putBack(msg);
          }),
        (err: unknown) =>
          this.h.lock.run(() => {
            if (msg.state !== 'sending') return;
            if (msg.cancelled)
              this.lose(msg, 'AGENT_STOPPED', 'The message was withdrawn by a stop before the agent took it in.');
            else if (err instanceof CodexRpcError) {
              this.h.log.debug({ err: err.message, inputId: msg.input.id }, 'turn/steer refused; it runs next');
              this.putBack(msg);
            } else this.lose(msg, 'AGENT_UNDELIVERED', (err as Error).message);
          }),
      );
  }

  /** Into the turn running now if it is another one, else the next turn. */
  private putBack(msg: SteerMsg): void {
    if (this.h.stopped()) {
      this.lose(msg, 'AGENT_STOPPED', 'The session stopped before the agent took the message in.');
      return;
    }
    const cur = this.h.turns.current;
    if (cur && cur !== msg.target && !cur.isSettled()) {
      msg.state = 'queued';
      msg.target = cur;
      cur.steers.push(msg);
      if (cur.open) this.send(msg, cur);
      return;
    }
    msg.state = 'queued';
    msg.target = undefined;
    if (!this.next.includes(msg)) this.next.push(msg);
    if (!cur) queueMicrotask(() => this.h.lock.run(() => this.drain()));
  }

  private lose(msg: SteerMsg, code: ErrorCode, detail: string): void {
    if (msg.state === 'settled') return;
    this.open.delete(msg.clientId);
    const at = this.next.indexOf(msg);
    if (at >= 0) this.next.splice(at, 1);
    msg.state = 'settled';
    msg.settle.reject(
      new RudderError(code, detail, { conversationId: this.h.conversationId, unanswered: [msg.input.id] }),
    );
  }
}
