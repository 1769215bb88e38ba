/**
 * What a person waits for, measured the same way on every side (sides.ts):
 *   - a new conversation's first text: from sending its first message to the first streamed text;
 *   - a warm turn's first text: the same for the next message of that conversation;
 *   - a correction sent mid-command: a command of two seconds runs (its start and end written by
 *     the command itself); one second in, a correction is sent; measured until the model gets the
 *     request that holds it (the mock's clock), and split into the host's part (having it → its
 *     write to the agent's stdin) and the agent's (the command's end → that request).
 * And memory per warm conversation: n conversations that each ran a turn with a command, the
 * proportional memory (PSS) of the side's agent processes and everything they started.
 */
import { mb, sleep } from '../stats.js';
import { treePss } from './pss.js';
import type { MarkedCommand, Phases, Side } from './sides.js';

export const COMMAND_SECONDS = 2;
export const CORRECTION_AFTER_MS = 1000;

export interface Waits {
  newFirstText: number;
  warmFirstText: number;
  /** The warm turn's first text by phase (undefined when the taps did not see it). */
  warmPhases: Phases | undefined;
  /** Correction sent → the model has it. */
  correction: number;
  /** Having the correction → its write to the agent (undefined when it was not found). */
  hostIn: number | undefined;
  /** The command's end → the request that holds the correction (the agent's own step). */
  boundary: number;
  /** How long before the command's end the correction was in the agent's hands (negative: after it). */
  margin: number;
}

/** One round on one side, in a conversation of its own. */
export async function waitsRound(side: Side, marks: MarkedCommand, tag: string): Promise<Waits> {
  const conv = `wait-${tag}`;
  const first = await side.send(conv, `hello tag:${tag}a`);
  const newFirstText = (await first.firstText) - first.sentAt;
  await first.done;
  const warm = await side.send(conv, `again tag:${tag}b`);
  const warmAt = await warm.firstText;
  await warm.done;
  const work = await side.send(conv, `work ${side.exec(marks.command(tag, COMMAND_SECONDS))} tag:${tag}c`);
  const started = await marks.started(tag);
  await sleep(started + CORRECTION_AFTER_MS - Date.now());
  const needle = `correction c:${tag}`;
  const correction = await side.send(conv, needle);
  const seenAt = await side.seen(needle);
  await work.done;
  const end = marks.ended(tag);
  return {
    newFirstText,
    warmFirstText: warmAt - warm.sentAt,
    warmPhases: side.phases(`tag:${tag}b`, warm.sentAt, warmAt, await side.seen(`again tag:${tag}b`)),
    correction: seenAt - correction.sentAt,
    hostIn: side.hostIn(needle, correction.sentAt),
    boundary: end === undefined ? Number.NaN : seenAt - end,
    margin: (end ?? Number.NaN) - (side.handedAt(needle) ?? Number.NaN),
  };
}

export interface MemoryRow {
  n: number;
  pss: number;
  processes: number;
}

/** n warm conversations on the side, one after another; the PSS of its agent processes after each. */
export async function warmMemory(side: Side, max: number, tag: string, log: (s: string) => void): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = [];
  const convs: string[] = [];
  for (let n = 1; n <= max; n++) {
    const conv = `mem-${tag}-${n}`;
    convs.push(conv);
    const s = await side.send(conv, `warm up ${side.exec('echo hi')} tag:${tag}m${n}`);
    await s.done;
    // Let the turn's end settle (a shell exits, buffers are freed) before reading memory.
    await sleep(1000);
    const pids = await side.agentPids(convs);
    rows.push({ n, pss: treePss(pids), processes: pids.length });
    log(`  ${side.name}: ${n} warm conversation(s), ${pids.length} agent process(es): ${mb(rows.at(-1)!.pss)}`);
  }
  return rows;
}

/** The first conversation's memory, and what each further one adds (the slope from the first to the last). */
export function perConversation(rows: MemoryRow[]): { first: number; further: number; atMax: number } {
  const first = rows[0]!.pss;
  const last = rows.at(-1)!;
  return {
    first,
    further: rows.length > 1 ? (last.pss - first) / (rows.length - 1) : first,
    atMax: last.pss / last.n,
  };
}
