/**
 * The shape of each event kind's data (events.ts) as a schema, so a row read back from the event log
 * is parsed, never cast (stored-events.ts): a row written by an older Rudder, or damaged, is found out
 * instead of reaching the page typed as today's shape. The types in events.ts (which the page imports
 * through src/http/wire.ts) stay the source of truth; SAME_SHAPE below fails to compile when a schema
 * and its type disagree (a field missing, required or typed differently on either side). Objects drop
 * keys they do not know, so the page gets the typed shape.
 */
import { z } from 'zod';
import type { EventDataOf, EventType } from './events.js';

const record = z.record(z.string(), z.unknown());
const codeAndMessage = z.object({ code: z.string(), message: z.string() });

const permissionOption = z.object({
  id: z.string(),
  label: z.string(),
  effect: z.string().optional(),
  kind: z.enum(['allow', 'deny']).optional(),
});

// ---- steps and turns (steps/types.ts) ----

const stepBase = {
  id: z.string(),
  turnId: z.string(),
  conversationId: z.string(),
  index: z.number(),
  at: z.number(),
};

/** One step of a turn: a `step` event's, and a row of the store's steps table. */
export const STEP = z.discriminatedUnion('kind', [
  z.object({
    ...stepBase,
    kind: z.literal('text'),
    text: z.string(),
    partial: z.boolean().optional(),
    final: z.boolean().optional(),
  }),
  z.object({
    ...stepBase,
    kind: z.literal('tool'),
    toolUseId: z.string(),
    name: z.string(),
    summary: z.string(),
    input: record,
    status: z.enum(['running', 'ok', 'error']),
    output: z.string().optional(),
    outputTruncated: z.boolean().optional(),
    endedAt: z.number().optional(),
    stopped: z.boolean().optional(),
  }),
  z.object({ ...stepBase, kind: z.literal('steer'), messageId: z.string(), text: z.string() }),
  z.object({
    ...stepBase,
    kind: z.literal('permission'),
    requestId: z.string(),
    toolName: z.string(),
    summary: z.string(),
    input: record,
    inputCut: z.boolean().optional(),
    description: z.string().optional(),
    options: z.array(permissionOption),
    status: z.enum(['open', 'answered', 'withdrawn']),
    answer: z.object({ optionId: z.string(), label: z.string(), by: z.string() }).optional(),
    endedAt: z.number().optional(),
  }),
  z.object({
    ...stepBase,
    kind: z.literal('notice'),
    code: z.enum(['stopped', 'failed', 'agent-status', 'rerun', 'rate-limited']),
    text: z.string(),
    key: z.string().optional(),
  }),
]);

const tokens = {
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheCreationTokens: z.number(),
  costUsd: z.number().nullable(),
};

const turnSummary = z.object({
  id: z.string(),
  conversationId: z.string(),
  status: z.enum(['running', 'answered', 'stopped', 'failed']),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  inputIds: z.array(z.string()),
  error: codeAndMessage.optional(),
  stepCount: z.number(),
  usage: z
    .object({ ...tokens, models: z.record(z.string(), z.object(tokens)).nullable(), durationMs: z.number() })
    .optional(),
});

// ---- a review action's result (projects/changes/types.ts, review/types.ts) ----

const ghMissing = z.enum(['REVIEW_GH_MISSING', 'REVIEW_GH_LOGGED_OUT']);
const branchAndBase = { branch: z.string(), base: z.string() };

const reviewResult = z.union([
  z.object({ branch: z.string(), sha: z.string(), summary: z.string(), files: z.number() }),
  z.object({ ...branchAndBase, kind: z.literal('up-to-date'), head: z.string() }),
  z.object({
    ...branchAndBase,
    kind: z.enum(['fast-forward', 'merge-commit']),
    from: z.string(),
    to: z.string(),
    commits: z.number(),
  }),
  z.object({ ...branchAndBase, kind: z.literal('conflict'), files: z.array(z.string()), clean: z.literal(true) }),
  z.object({
    remote: z.string(),
    url: z.string(),
    branch: z.string(),
    kind: z.enum(['created', 'updated', 'up-to-date']),
    head: z.string(),
  }),
  z.object({ ...branchAndBase, opened: z.literal(true), url: z.string() }),
  z.object({ opened: z.literal(false), code: ghMissing, message: z.string() }),
  z.object({ removed: z.number(), remaining: z.number(), files: z.array(z.string()) }),
]);

// ---- each kind's data ----

export const EVENT_DATA = {
  ack: z.object({
    kind: z.enum(['received', 'steered', 'queued', 'stopped']),
    emoji: z.string(),
    note: z.string().optional(),
    at: z.number().optional(),
  }),
  text: z.object({ delta: z.string(), turnId: z.string() }),
  reply: z.object({
    text: z.string(),
    kind: z.enum(['reply', 'notice']),
    messageIds: z.array(z.string()),
    outboxId: z.string(),
    fromFallback: z.boolean(),
  }),
  permission: z.union([
    z.object({
      requestId: z.string(),
      toolName: z.string(),
      input: record,
      description: z.string().optional(),
      options: z.array(permissionOption),
    }),
    z.object({ requestId: z.string(), resolved: z.string(), by: z.string(), delivered: z.literal(true) }),
    z.object({ requestId: z.string(), withdrawn: z.literal(true) }),
  ]),
  error: z.object({ code: z.string(), message: z.string(), messageIds: z.array(z.string()) }),
  status: z.discriminatedUnion('state', [
    z.object({ state: z.literal('tool'), tool: z.string(), turnId: z.string(), input: z.string() }),
    z.object({ state: z.literal('steer-absorbed'), turnId: z.string() }),
    z.object({ state: z.literal('agent'), message: z.string(), turnId: z.string(), key: z.string().optional() }),
    z.object({ state: z.literal('turn-started'), turnId: z.string(), inputIds: z.array(z.string()) }),
    z.object({ state: z.literal('connected'), lastEventId: z.number() }),
  ]),
  step: z.object({ step: STEP }),
  turn: z.object({ turn: turnSummary }),
  message: z.object({
    state: z.string(),
    text: z.string().optional(),
    edited: z.boolean().optional(),
    transcript: z.string().optional(),
  }),
  review: z.object({
    action: z.enum(['commit', 'merge', 'push', 'pull-request', 'discard']),
    ok: z.boolean(),
    by: z.string(),
    summary: z.string(),
    error: codeAndMessage.optional(),
    result: reviewResult.optional(),
  }),
} as const;

/** True when A and B are the same type: an optional field one has and the other lacks counts (zod drops it). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Fails to compile when a kind has no schema, or its schema and its type in events.ts disagree. */
const SAME_SHAPE: { [K in EventType]: Same<z.infer<(typeof EVENT_DATA)[K]>, EventDataOf[K]> } = {
  ack: true,
  text: true,
  reply: true,
  permission: true,
  error: true,
  status: true,
  step: true,
  turn: true,
  message: true,
  review: true,
};
void SAME_SHAPE;
