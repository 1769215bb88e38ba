/**
 * /stop and /clear, decided: everything sent before the command ends as stopped (what waits in line,
 * what a hold defers, what was steered but not taken in, the running turn's inputs); the session
 * survives. The command's send time becomes the conversation's cutoff, and every path that would run
 * or hold a message again asks `sentBefore` first, so what a stop ended stays ended.
 */
import type { MessageRow } from '../../store/types.js';

/** Sent before the cutoff of the last /stop or /clear (0: none): that command ended it. */
export function sentBefore(row: MessageRow, cutoff: number): boolean {
  return (row.sentAt ?? row.receivedAt) < cutoff;
}

/** Rows a stop already ended, and the rest. */
export function splitByCutoff(rows: MessageRow[], cutoff: number): { ended: MessageRow[]; kept: MessageRow[] } {
  const ended = rows.filter((r) => sentBefore(r, cutoff));
  return { ended, kept: rows.filter((r) => !ended.includes(r)) };
}

/** What a stop drops at once: the held messages (those not also in line) and then the line. */
export function droppedByStop(held: MessageRow[], queued: MessageRow[]): MessageRow[] {
  return [...held.filter((h) => !queued.some((q) => q.id === h.id)), ...queued];
}

/**
 * Once the interrupted turn had its outcome: inputs handed over that no turn runs (steers not taken in,
 * a start whose hand-over the stop overtook) end stopped too.
 */
export function leftoversOf(handed: MessageRow[], running: string[]): MessageRow[] {
  return handed.filter((r) => !running.includes(r.id));
}

/**
 * Inputs sent before the cutoff in a turn that started after it: the agent can take steers written
 * before a /stop into a new turn in the instant before it reads the interrupt.
 */
export function staleInputs(cutoff: number, turnStartedAt: number, rows: () => MessageRow[]): Set<string> {
  if (!cutoff || turnStartedAt <= cutoff) return new Set();
  return new Set(
    rows()
      .filter((r) => sentBefore(r, cutoff))
      .map((r) => r.id),
  );
}
