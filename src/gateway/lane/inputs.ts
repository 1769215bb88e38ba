/**
 * What a lane knows of the inputs it handed to the agent and that are not settled yet, and of the
 * turns they run in. Owned by the lane (lane.ts), which alone calls the methods that change it; the
 * deciders get `facts()` and the read-only lookups.
 */
import type { MessageRow } from '../../store/types.js';

export class InputLedger {
  /** Inputs handed to the agent (running or steering), not yet settled. */
  private readonly handed = new Map<string, MessageRow>();
  /** Inputs merged into a turn after its first. */
  private readonly mergedIds = new Set<string>();
  /** Steers the agent took in only after the running turn ended (each answered by a turn of its own), and why. */
  private readonly ranAsTurnWhy = new Map<string, string>();
  /** The sender of each running turn's first input: steers from someone else wait. */
  private readonly senders = new Map<string, string>();

  /** A turn's inputs are handed over: the first answered, the rest merged into it. */
  turnWritten(turnId: string, rows: MessageRow[]): void {
    for (const r of rows) this.handed.set(r.id, r);
    for (const r of rows.slice(1)) this.mergedIds.add(r.id);
    this.senders.set(turnId, rows[0]!.senderId);
  }

  /** One input handed over on its own: a steer, or a message of a turn followed again after a restart. */
  handedOver(row: MessageRow): void {
    this.handed.set(row.id, row);
  }

  ranAsTurn(id: string, reason: string): void {
    this.ranAsTurnWhy.set(id, reason);
  }

  /** Whose turn it is; a backend that names its turns itself renames it (`from` is forgotten). */
  turnOf(turnId: string, sender: string, from?: string): void {
    if (from !== undefined) this.senders.delete(from);
    this.senders.set(turnId, sender);
  }

  turnOver(turnId: string): void {
    this.senders.delete(turnId);
  }

  /** Forgets what the lane knew of an input that is settled. */
  forget(id: string): void {
    this.handed.delete(id);
    this.mergedIds.delete(id);
    this.ranAsTurnWhy.delete(id);
  }

  row(id: string): MessageRow | undefined {
    return this.handed.get(id);
  }

  /** Every input handed over and not settled, in the order handed. */
  rows(): MessageRow[] {
    return [...this.handed.values()];
  }

  count(): number {
    return this.handed.size;
  }

  senderOf(turnId: string): string | undefined {
    return this.senders.get(turnId);
  }

  follows(turnId: string): boolean {
    return this.senders.has(turnId);
  }

  merged(): ReadonlySet<string> {
    return this.mergedIds;
  }

  ranAsTurnReasons(): ReadonlyMap<string, string> {
    return this.ranAsTurnWhy;
  }
}
