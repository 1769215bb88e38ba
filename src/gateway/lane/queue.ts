/**
 * A lane's line of waiting messages: pure operations, no I/O and no timers (the lane does those).
 * An item is one later turn: one message, several merged (collect mode, the overflow past the
 * queue cap, the inputs of one failed turn run again), or a message that waits for something before
 * it can run (a voice note being transcribed) while it keeps its place.
 */
import type { MessageRow } from '../../store/types.js';

export interface QueueItem {
  rows: MessageRow[];
  /** collect mode: still inside its quiet window. */
  collecting?: boolean;
  /** Waiting for something before it can run (a voice note being transcribed). */
  pending?: boolean;
  /** Holds messages that arrived while the queue was full: they run as one merged turn. */
  overflow?: boolean;
  /** Released from a hold (a rate limit): inputs of the same failed turn share the item. */
  held?: boolean;
}

const seqOf = (item: QueueItem) => item.rows[0]?.seq ?? 0;

export class LaneQueue {
  private items: QueueItem[] = [];

  /** Messages waiting, across items. */
  depth(): number {
    return this.items.reduce((n, i) => n + i.rows.length, 0);
  }

  get length(): number {
    return this.items.length;
  }

  has(messageId: string): boolean {
    return this.items.some((i) => i.rows.some((r) => r.id === messageId));
  }

  /** One message, one later turn. */
  push(row: MessageRow): QueueItem {
    const item = { rows: [row] };
    this.items.push(item);
    return item;
  }

  /** Past the queue cap: into the overflow item at the end (a new one when the last is not). */
  pushOverflow(row: MessageRow): QueueItem {
    let item = this.items.at(-1);
    if (!item?.overflow) this.items.push((item = { rows: [], overflow: true }));
    item.rows.push(row);
    return item;
  }

  /** collect mode: joins the item still collecting at the end, or opens one; merged says which. */
  collect(row: MessageRow): { item: QueueItem; merged: boolean } {
    const last = this.items.at(-1);
    if (last?.collecting) {
      last.rows.push(row);
      return { item: last, merged: true };
    }
    const item: QueueItem = { rows: [row], collecting: true };
    this.items.push(item);
    return { item, merged: false };
  }

  /** A message that must wait for something (a transcription) but keeps its place in line. */
  pushPending(row: MessageRow): QueueItem {
    const item: QueueItem = { rows: [row], pending: true };
    this.items.push(item);
    return item;
  }

  /** The pending item can run now, with its updated row. */
  ready(item: QueueItem, row?: MessageRow): void {
    if (row) item.rows[0] = row;
    item.pending = false;
  }

  /** The collect window closed: the item can run. */
  closeCollect(item: QueueItem): void {
    item.collecting = false;
  }

  remove(item: QueueItem): void {
    const i = this.items.indexOf(item);
    if (i >= 0) this.items.splice(i, 1);
  }

  /** In front: a turn that could not start, a cut-off turn run again. */
  unshift(rows: MessageRow[]): void {
    this.items.unshift({ rows });
  }

  /** Back in line where they arrived (each its own turn): before what came later. */
  putBack(rows: MessageRow[]): void {
    this.items.unshift(...rows.map((r) => ({ rows: [r] })));
    this.sortBySeq();
  }

  /**
   * Released from a hold, in arrival order: inputs one failed turn had taken in together run again
   * together (one note, one answer); what is already in line is not added twice.
   */
  addReleased(rows: MessageRow[]): MessageRow[] {
    const known = new Set(this.items.flatMap((i) => i.rows.map((r) => r.id)));
    const added: MessageRow[] = [];
    for (const row of rows) {
      if (known.has(row.id)) continue;
      const last = this.items.at(-1);
      if (row.attempts > 0 && row.turnId && last?.held && last.rows[0]!.turnId === row.turnId) last.rows.push(row);
      else this.items.push({ rows: [row], held: true });
      added.push(row);
    }
    this.sortBySeq();
    return added;
  }

  /** The next item when it can run now (not collecting, not pending), taken out of line. */
  takeRunnable(): QueueItem | undefined {
    const item = this.items[0];
    if (!item || item.collecting || item.pending) return undefined;
    return this.items.shift();
  }

  /** An edit of a message still waiting: the new text replaces the queued one. */
  replace(messageId: string, text: string): boolean {
    for (const item of this.items) {
      const i = item.rows.findIndex((r) => r.id === messageId);
      if (i >= 0) {
        item.rows[i] = { ...item.rows[i]!, text };
        return true;
      }
    }
    return false;
  }

  /** Takes a waiting message out of line. 'pending': it waits for a transcription and cannot be taken back. */
  withdraw(messageId: string): 'removed' | 'pending' | 'absent' {
    for (const [at, item] of this.items.entries()) {
      const i = item.rows.findIndex((r) => r.id === messageId);
      if (i < 0) continue;
      if (item.pending) return 'pending';
      item.rows.splice(i, 1);
      if (item.rows.length === 0) this.items.splice(at, 1);
      return 'removed';
    }
    return 'absent';
  }

  /** Empties the line (/stop): every waiting message. */
  drain(): MessageRow[] {
    return this.items.splice(0).flatMap((i) => i.rows);
  }

  private sortBySeq(): void {
    this.items.sort((a, b) => seqOf(a) - seqOf(b));
  }
}
