/**
 * Attribution: which turn each stdin message went into. The CLI reports, per client uuid, when it
 * takes a message in (command_lifecycle "started", the --replay-user-messages echo) and which
 * messages a result answers (result.user_message_uuids). A message taken in while the turn it was
 * written during is current was steered; one taken in later ran as (part of) a later turn.
 */
import { type ErrorCode, RudderError } from '../../errors.js';
import type { TurnSlot } from '../common/turn-slot.js';
import type { StreamTurn, WireMessage } from './stream-turn.js';

export interface LedgerHooks {
  conversationId: string;
  /** The session's running turn; steers taken in are counted there. */
  turns: TurnSlot<StreamTurn>;
  /** The CLI started a turn of its own for a queued message. */
  newTurn(): StreamTurn;
}

export class WireLedger {
  private readonly open = new Map<string, WireMessage>();

  constructor(private readonly hooks: LedgerHooks) {}

  /** Messages written and not yet answered, withdrawn or lost. */
  size(): number {
    return this.open.size;
  }

  add(msg: WireMessage): void {
    this.open.set(msg.uuid, msg);
  }

  get(uuid: string): WireMessage | undefined {
    return this.open.get(uuid);
  }

  /** The CLI took a message in: into the running turn (steered) or as the start of a new one. */
  takeIn(msg: WireMessage): void {
    if (msg.turn) return;
    const turn = this.hooks.turns.current ?? this.hooks.newTurn();
    msg.turn = turn;
    turn.wire.push(msg);
    turn.addInputs(msg.inputIds);
    if (!msg.settle) return;
    if (msg.writtenDuring === turn) {
      this.hooks.turns.steered(msg.inputIds.length);
      for (const id of msg.inputIds) turn.emit({ type: 'steer-absorbed', inputId: id });
      msg.settle.resolve({ outcome: 'steered', turn });
    } else {
      msg.settle.resolve({ outcome: 'ran-as-turn', turn });
    }
    msg.settle = undefined;
  }

  /** The message will never be answered: its steer (if pending) fails with the reason. */
  drop(msg: WireMessage, code: ErrorCode, detail: string): void {
    this.open.delete(msg.uuid);
    msg.settle?.reject(
      new RudderError(code, detail, { conversationId: this.hooks.conversationId, unanswered: msg.inputIds }),
    );
    msg.settle = undefined;
  }

  /** Messages a result names that showed no lifecycle frame (older CLIs) are taken in now. */
  takeInNamed(named: string[] | undefined): void {
    for (const uuid of named ?? []) {
      const msg = this.open.get(uuid);
      if (msg && !msg.turn) this.takeIn(msg);
    }
  }

  /**
   * Settles a result: returns the messages it answers (removed from the ledger) and how many
   * inputs were steered into the turn. Messages taken in but not named were put back by an
   * interrupt; they run again later and are attributed then.
   */
  settle(turn: StreamTurn, named: string[] | undefined): { inputIds: string[]; steered: number } {
    const answered = named ? turn.wire.filter((m) => named.includes(m.uuid)) : turn.wire;
    for (const m of turn.wire) {
      if (answered.includes(m)) continue;
      m.turn = undefined;
      turn.removeInputs(m.inputIds);
    }
    for (const m of answered) this.open.delete(m.uuid);
    const steered = answered
      .filter((m) => m.kind === 'steer' && m.writtenDuring === turn)
      .reduce((n, m) => n + m.inputIds.length, 0);
    return { inputIds: answered.flatMap((m) => m.inputIds), steered };
  }

  /** The process is gone: every message not part of `except` is lost with the reason. */
  dropAll(except: StreamTurn | undefined, code: ErrorCode, detail: string): void {
    for (const msg of [...this.open.values()]) if (msg.turn !== except || !except) this.drop(msg, code, detail);
    this.open.clear();
  }
}
