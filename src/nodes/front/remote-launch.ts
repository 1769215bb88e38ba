/**
 * What the front's agent launches (projects/launches.ts) give a session whose project lives on a node,
 * what such a session needs from the front's link to its nodes, and what it says of reachability.
 */
import type { Capabilities } from '../../agents/session.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { Command, NodeEvent } from '../wire.js';

export interface RemoteLaunch {
  conversationId: string;
  node: string;
  project: string;
  /** The session to resume (the front's store), undefined for a new one. */
  sessionId: string | undefined;
  /** The conversation's own model (/model), read at each turn; undefined: the node's config decides. */
  model(): string | undefined;
  /** A session id the node reported: kept under the project, as a local launch does. */
  onSessionId(id: string): void;
  /** How long an interrupt may take before the front stops waiting for the turn's end. */
  interruptGraceMs: number;
  logger: Logger;
}

export interface Reach {
  reachable: boolean;
  /** The last heartbeat, epoch ms (undefined: never seen since the front started). */
  lastSeenAt: number | undefined;
  /** Back as a new run of the node (its heartbeat's startedAt changed): what ran there before was lost. */
  restarted?: boolean;
}

/** The front's side of the wire, as one remote session uses it. */
export interface NodeLink {
  /** Hands a command to the node's stream: durable, in order, resent until stored. */
  send(node: string, cmd: Command): void;
  reach(node: string): Reach;
  /** Called with each change of a node's reachability. */
  onReach(node: string, fn: (r: Reach) => void): () => void;
  /** What the node said its project's backend can do (its heartbeat), when known. */
  capabilities(node: string, project: string): Capabilities | undefined;
  /** Routes the node's events about this conversation to the session (until it stops). */
  register(session: { conversationId: string; deliver(e: NodeEvent): void }): () => void;
  /** Whether the front's store has recorded the end of this turn (an event about it is old). */
  turnEnded(turnId: string): boolean;
}

/** "gpu (last seen 12:04:31 UTC)" */
export function reachText(node: string, r: Reach): string {
  const seen = r.lastSeenAt ? `last seen ${new Date(r.lastSeenAt).toISOString().slice(11, 19)} UTC` : 'not seen yet';
  return `${node} (${seen})`;
}

/** What a running turn's conversation is told when its node is lost, and when it is back. */
export function reachNotice(node: string, r: Reach): string {
  return r.reachable
    ? `✓ ${node} is reachable again; the turn goes on.`
    : `⏳ unreachable: ${reachText(node, r)}. The turn goes on when it is back; nothing is lost.`;
}

/** startTurn on a lost node: nothing is handed over; the lane holds the messages until it is back. */
export function unreachableError(conversationId: string, node: string, r: Reach): RudderError {
  return new RudderError('AGENT_UNREACHABLE', `unreachable: ${reachText(node, r)}.`, {
    conversationId,
    node,
    lastSeenAt: r.lastSeenAt,
  });
}
