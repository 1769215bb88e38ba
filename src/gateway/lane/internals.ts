/**
 * A lane's private state, shared by the files of lane/ only: the Lane never hands it out, so
 * everything outside the lane goes through its methods.
 */
import type { AgentSession } from '../../agents/session.js';
import type { Logger } from '../../ops/logger.js';
import type { MessageRow } from '../../store/types.js';
import type { LaneDeps } from './deps.js';
import type { Hold } from './hold.js';
import type { LaneQueue } from './queue.js';

/** A turn written and waiting for its commit before its inputs are handed over (start.ts). */
export interface PendingStart {
  turnId: string;
  sender: string;
}

export interface LaneInternals {
  readonly conversationId: string;
  readonly deps: LaneDeps;
  readonly log: Logger;
  readonly queue: LaneQueue;
  /** Inputs handed to the agent (running or steering), not yet settled. */
  readonly inFlight: Map<string, MessageRow>;
  /** Inputs merged into a turn after its first. */
  readonly merged: Set<string>;
  /** Steers the agent took in only after the running turn ended (each answered by a turn of its own), and why. */
  readonly ranAsTurn: Map<string, string>;
  /** The sender of each running turn's first input: steers from someone else wait. */
  readonly turnSender: Map<string, string>;
  readonly hold: Hold;
  /** Set while /stop or /clear runs, so interrupted inputs are recorded as stopped. */
  stopping: boolean;
  /** A turn written and waiting for its commit before its inputs are handed over (start.ts). */
  pendingStart: PendingStart | undefined;
  /** A release (/model) waiting for the running turn to end. */
  pendingRelease: string | undefined;
  /**
   * Held because the agent cannot be reached: what the person was told (once), until it is back;
   * `where` names it (the error's context.node), for the notice that it is back.
   */
  unreachable: { told: string; where: string | undefined } | undefined;
  session(): AgentSession | undefined;
  /** Follows every turn of a session (its results, steers and reachability), once per session. */
  watch(session: AgentSession): void;
  /** Starts the next runnable item when the agent is free. */
  pump(): void;
  /** Forgets what the lane knew of an input that is settled. */
  forget(id: string): void;
  /** Rows /stop or /clear already ended are marked stopped (with the ⏹ ack); the rest are returned. */
  withoutStopped(rows: MessageRow[]): MessageRow[];
  /** Sent before the last /stop or /clear: that command ended it. */
  sentBeforeCutoff(row: MessageRow): boolean;
}
