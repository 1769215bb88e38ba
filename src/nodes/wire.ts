/**
 * The wire between the front (`rudder start`) and its nodes (`rudder node`), typed once: every
 * message crossing NATS in either direction, the presence record, the queries, and the names of
 * subjects, streams, consumers and the presence bucket. Both sides import this file; the parser
 * (`parseCommand`, `parseNodeEvent`) is pure and never throws: a bad message is undefined.
 *
 * Delivery: commands (front → node) and events (node → front) go through JetStream streams, each
 * published with a message id (Nats-Msg-Id) made from the store's ids and per-turn sequence
 * numbers (`commandId`, `eventId`), so a resend after a crash is dropped as a duplicate; each side's durable
 * consumer acknowledges a message only once what it did with it is committed.
 */

import type {
  Capabilities,
  PermissionAnswer,
  SessionState,
  SteerResult,
  TurnEvent,
  TurnResult,
  UserInput,
} from '../agents/session.js';
import type { AttachedPane } from '../agents/tmux/attach/attachment.js';
import { ERRORS, type ErrorCode, type ErrorContext, RudderError } from '../errors.js';
import {
  type CommitResult,
  type DiscardPreview,
  type DiscardResult,
  type FileDiff,
  type GithubCli,
  type MergeResult,
  type PullRequestResult,
  type PushResult,
  SECTIONS,
  type Section,
  type TreeView,
} from '../projects/changes/types.js';
import type { TerminalCodex, TerminalPane, TerminalWay } from '../projects/terminal-types.js';

export const WIRE_VERSION = 1;

// ---- names ----

/** Commands to every node; node N reads `rudder.cmd.N` only. */
export const COMMAND_STREAM = 'RUDDER_CMD';
/** Events of every node; node N publishes `rudder.evt.N` only. */
export const EVENT_STREAM = 'RUDDER_EVT';
/** Heartbeats: one key per node, rewritten every few seconds. */
export const PRESENCE_BUCKET = 'rudder_nodes';
/** The front's durable consumer of every node's events. */
export const FRONT_CONSUMER = 'front';

export const commandSubject = (node: string) => `rudder.cmd.${node}`;
export const eventSubject = (node: string) => `rudder.evt.${node}`;
export const querySubject = (node: string) => `rudder.query.${node}`;
export const nodeConsumer = (node: string) => `node-${node}`;
/** Each node's replies arrive under its own prefix, so no node can read another's. */
export const inboxPrefix = (who: string) => `_INBOX_${who}`;
/** The node an event subject belongs to (the server's permissions make the subject trustworthy). */
export function nodeOfSubject(subject: string): string | undefined {
  const m = /^rudder\.evt\.([A-Za-z0-9_-]+)$/.exec(subject);
  return m?.[1];
}

// ---- front → node ----

interface CommandBase {
  conversationId: string;
}

export type Command =
  /** Start a turn with these inputs (the front chose its id); sessionId null starts a new session. */
  | (CommandBase & {
      type: 'turn';
      project: string;
      turnId: string;
      inputs: UserInput[];
      sessionId: string | null;
      /** The conversation's own model (/model); undefined: the node's config decides. */
      model?: string;
    })
  /** After a restart of the front: the turn it had running; the node answers only when it never had it. */
  | (CommandBase & { type: 'attach'; turnId: string; inputIds: string[] })
  | (CommandBase & { type: 'steer'; input: UserInput })
  | (CommandBase & { type: 'interrupt'; cancelQueued: boolean; nonce: string })
  | (CommandBase & { type: 'answer'; requestId: string; answer: PermissionAnswer })
  /** Stop the conversation's session (its id stays resumable). */
  | (CommandBase & { type: 'release'; reason: string; nonce: string });

// ---- node → front ----

/** A RudderError as it crosses the wire. */
export interface WireError {
  code: string;
  message: string;
  context: ErrorContext;
}

export type WireTurnEvent = Exclude<TurnEvent, { type: 'error' | 'result' }>;

export type NodeEvent =
  /** A turn began: one the front started, or one the agent started on its own (a steer that ran as a turn). */
  | { type: 'turn'; conversationId: string; turnId: string; inputIds: string[]; sessionId: string | null }
  /** One event of a running turn, numbered from 1 within it. */
  | { type: 'event'; conversationId: string; turnId: string; seq: number; event: WireTurnEvent }
  /** How a turn ended: exactly one per turn (its message id is the turn's end). */
  | {
      type: 'end';
      conversationId: string;
      turnId: string;
      result?: TurnResult;
      error?: WireError;
      sessionId: string | null;
    }
  | {
      type: 'steer';
      conversationId: string;
      inputId: string;
      outcome: SteerResult['outcome'];
      turnId?: string;
    };

/** The message id a command is published with: a resend of the same command is the same id. */
export function commandId(c: Command): string {
  switch (c.type) {
    case 'turn':
    case 'attach':
      return `${c.type}:${c.turnId}`;
    case 'steer':
      return `steer:${c.input.id}`;
    case 'interrupt':
    case 'release':
      return `${c.type}:${c.conversationId}:${c.nonce}`;
    case 'answer':
      return `answer:${c.requestId}`;
  }
}

/** The message id an event is published with: per turn and sequence number, one end per turn. */
export function eventId(e: NodeEvent): string {
  switch (e.type) {
    case 'turn':
      return `${e.turnId}:0`;
    case 'event':
      return `${e.turnId}:${e.seq}`;
    case 'end':
      return `${e.turnId}:end`;
    case 'steer':
      return `steered:${e.inputId}`;
  }
}

// ---- presence ----

export interface PresenceProject {
  name: string;
  backend: string;
  capabilities: Capabilities;
}

export interface PresenceSession {
  conversationId: string;
  state: SessionState;
  pid: number | null;
  sessionId: string | null;
  project: string;
}

/** What a node writes into the presence bucket every heartbeat. */
export interface Presence {
  v: number;
  node: string;
  /** The node's clock when it wrote this, epoch ms. */
  at: number;
  startedAt: number;
  version: string;
  projects: PresenceProject[];
  sessions: PresenceSession[];
  rssBytes: number | null;
}

// ---- queries (request/reply, nothing durable) ----

export type Query =
  | { type: 'sessions'; conversationId: string; project: string; limit: number }
  | { type: 'has-session'; conversationId: string; project: string; sessionId: string }
  | ReviewQuery
  /** What runs now in the project on the node: the Claude Code TUIs in its tmux panes, the rest with why. */
  | { type: 'running'; conversationId: string; project: string }
  /** The conversation drives that pane on the node from now on (the node runs the attached session). */
  | { type: 'attach-pane'; conversationId: string; project: string; pane: WirePaneRef }
  /** The conversation lets go of the pane it drives on the node. */
  | { type: 'detach-pane'; conversationId: string; project: string }
  /**
   * `rudder attach` on the node's machine: which way it opens there (`open: false`), or open it (`open: true`:
   * the front's lane lets no turn start meanwhile for a move or a Codex line).
   */
  | { type: 'terminal'; conversationId: string; project: string; open: boolean };

/** A Claude Code TUI in a pane of the node's tmux servers (projects/running.ts's RunningPane). */
export interface WireRunningPane extends AttachedPane {
  attachable: true;
  /** What the pane classifier says of its screen. */
  state: 'ready' | 'busy' | 'menu' | 'not-ready';
  lastPrompt?: string;
  /** The conversation that drives it (the node keeps the attachment). */
  attachedTo?: string;
}

/** A claude process on the node with a session in the project that cannot be attached, and why. */
export interface WireRunningElsewhere {
  attachable: false;
  pid: number;
  sessionId: string;
  cwd: string;
  why: string;
}

/** A pane as a list named it: found again on the node by these, with the same claude in it. */
export interface WirePaneRef {
  socket: string;
  paneId: string;
  pid: number;
  label?: string;
}

/** One step of a conversation's review (projects/changes), run by the node's git in its tree of the conversation. */
export type ReviewStep =
  | { step: 'view' }
  | { step: 'file-diff'; ref: { section: Section; path: string; oldPath?: string } }
  /** What the base changed in these files since the branch left it (for a merge conflict's message). */
  | { step: 'base-change'; files: string[] }
  | { step: 'commit'; message: string }
  | { step: 'merge' }
  | { step: 'push'; which: 'branch' | 'base' }
  | { step: 'pull-request-available' }
  | { step: 'pull-request'; title?: string; body?: string; draft?: boolean }
  | { step: 'discard-preview' }
  | { step: 'discard'; confirm: string };

export type ReviewQuery = { type: 'review'; conversationId: string; project: string } & ReviewStep;

/** What each review step answers with (the node's ConversationReview's own result). */
export interface ReviewResults {
  view: TreeView;
  'file-diff': FileDiff;
  'base-change': { branch: string; base: string; diff: string; cut: boolean };
  commit: CommitResult;
  merge: MergeResult;
  push: PushResult;
  'pull-request-available': GithubCli;
  'pull-request': PullRequestResult;
  'discard-preview': DiscardPreview;
  discard: DiscardResult;
}

export interface WireCliSession {
  id: string;
  updatedAt: number;
  firstPrompt?: string;
  lastMessage?: { role: 'user' | 'assistant'; text: string };
  /** A running CLI process on the node has it open (pid there). */
  openPid?: number;
}

export type QueryAnswer =
  /** noun: what the list is ("Codex threads"); absent from an older node, whose lists are Claude Code's. */
  | { ok: true; sessions: WireCliSession[]; where: string; noun?: string }
  | { ok: true; has: boolean }
  | { ok: true; review: ReviewResults[ReviewStep['step']] }
  /** `servers`: the node's tmux servers looked in; a pane's `attachedTo`: the conversation that drives it. */
  | { ok: true; running: Array<WireRunningPane | WireRunningElsewhere>; servers: string[] }
  | { ok: true; attached: WireRunningPane }
  /** What the node said when it let go of the pane (/detach's answer). */
  | { ok: true; detached: string }
  | { ok: true; terminal: TerminalWay }
  /** `told`: what the conversation is to be told (a headless session moved to a pane there). */
  | { ok: true; opened: TerminalPane | TerminalCodex; told?: string }
  | { ok: false; error: WireError };

/** A RudderError as the node sent it: its code (an unknown one is AGENT_TURN_FAILED), message and context. */
export function errorFromWire(e: WireError): RudderError {
  const code = (e.code in ERRORS ? e.code : 'AGENT_TURN_FAILED') as ErrorCode;
  const err = new RudderError(code, undefined, e.context ?? {});
  Object.defineProperty(err, 'message', { value: e.message || ERRORS[code], enumerable: false });
  return err;
}

export function errorToWire(err: unknown): WireError {
  if (err instanceof RudderError) return { code: err.code, message: err.message, context: err.context };
  return { code: 'AGENT_TURN_FAILED', message: err instanceof Error ? err.message : String(err), context: {} };
}

// ---- parsing ----

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrArr = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);

function parseJson(data: Uint8Array | string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data));
    return isObj(v) && isStr(v.type) && isStr(v.conversationId) ? v : undefined;
  } catch {
    return undefined;
  }
}

function isInput(v: unknown): v is UserInput {
  return isObj(v) && isStr(v.id) && isStr(v.text);
}

export function parseCommand(data: Uint8Array | string): Command | undefined {
  const v = parseJson(data);
  if (!v) return undefined;
  switch (v.type) {
    case 'turn':
      return isStr(v.project) && isStr(v.turnId) && Array.isArray(v.inputs) && v.inputs.every(isInput)
        ? (v as unknown as Command)
        : undefined;
    case 'attach':
      return isStr(v.turnId) && isStrArr(v.inputIds) ? (v as unknown as Command) : undefined;
    case 'steer':
      return isInput(v.input) ? (v as unknown as Command) : undefined;
    case 'interrupt':
    case 'release':
      return isStr(v.nonce) ? (v as unknown as Command) : undefined;
    case 'answer':
      return isStr(v.requestId) && isObj(v.answer) && isStr(v.answer.optionId) ? (v as unknown as Command) : undefined;
    default:
      return undefined;
  }
}

export function parseNodeEvent(data: Uint8Array | string): NodeEvent | undefined {
  const v = parseJson(data);
  if (!v) return undefined;
  switch (v.type) {
    case 'turn':
      return isStr(v.turnId) && isStrArr(v.inputIds) ? (v as unknown as NodeEvent) : undefined;
    case 'event':
      return isStr(v.turnId) && typeof v.seq === 'number' && isObj(v.event) && isStr(v.event.type)
        ? (v as unknown as NodeEvent)
        : undefined;
    case 'end':
      return isStr(v.turnId) && (isObj(v.result) || isObj(v.error)) ? (v as unknown as NodeEvent) : undefined;
    case 'steer':
      return isStr(v.inputId) && ['steered', 'ran-as-turn', 'process-dead'].includes(String(v.outcome))
        ? (v as unknown as NodeEvent)
        : undefined;
    default:
      return undefined;
  }
}

const isOptStr = (v: unknown) => v === undefined || isStr(v);

/** Whether a review query's step carries what that step needs (its own fields, of their types). */
function isReviewStep(v: Record<string, unknown>): boolean {
  switch (v.step) {
    case 'view':
    case 'merge':
    case 'pull-request-available':
    case 'discard-preview':
      return true;
    case 'file-diff':
      return (
        isObj(v.ref) &&
        (SECTIONS as readonly string[]).includes(String(v.ref.section)) &&
        isStr(v.ref.path) &&
        isOptStr(v.ref.oldPath)
      );
    case 'base-change':
      return isStrArr(v.files);
    case 'commit':
      return isStr(v.message);
    case 'push':
      return v.which === 'branch' || v.which === 'base';
    case 'pull-request':
      return isOptStr(v.title) && isOptStr(v.body) && (v.draft === undefined || typeof v.draft === 'boolean');
    case 'discard':
      return isStr(v.confirm);
    default:
      return false;
  }
}

/** A review query as the node reads it; anything else (another query, or a review step it cannot run) is undefined. */
export function parseReviewQuery(data: Uint8Array | string): ReviewQuery | undefined {
  const v = parseJson(data);
  return v && v.type === 'review' && isStr(v.project) && isReviewStep(v) ? (v as unknown as ReviewQuery) : undefined;
}

/** A review step's result from the node's answer, or the error it sent (an answer of another kind is one too). */
export function reviewResultOf<S extends ReviewStep['step']>(a: QueryAnswer, step: S): ReviewResults[S] {
  if (!a.ok) throw errorFromWire(a.error);
  if (!('review' in a) || !isObj(a.review))
    throw new RudderError('AGENT_TURN_FAILED', `The node's answer to the review step ${step} is not one Rudder reads.`);
  return a.review as ReviewResults[S];
}

export function parsePresence(data: Uint8Array | string): Presence | undefined {
  try {
    const v = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data));
    return isObj(v) && isStr(v.node) && typeof v.at === 'number' && Array.isArray(v.projects)
      ? (v as unknown as Presence)
      : undefined;
  } catch {
    return undefined;
  }
}

export function encode(m: Command | NodeEvent | Presence | Query | QueryAnswer): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(m));
}
