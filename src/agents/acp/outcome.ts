/**
 * A finished prompt as a TurnResult or a typed error. The stop reason decides, each said plainly:
 *   end_turn           the answer
 *   cancelled          a result when Rudder asked for it (or the person refused a permission and the
 *                      agent ends the prompt for that, as Codex does); otherwise a failure
 *   refusal            a result marked as an error, with "the agent refused" told to the person
 *   max_tokens         the same, "ran out of output tokens"
 *   max_turn_requests  the same, "reached its limit of model requests for one turn"
 * A JSON-RPC error from the agent is typed from its code and message (a login needed, a rate limit,
 * the API), anything else keeps the code it has (the process's exit, a timeout).
 */
import { asRudderError, RudderError } from '../../errors.js';
import type { TurnResult, Usage } from '../session.js';
import type { AcpTurn } from './acp-turn.js';
import { ACP_ERRORS, type GeminiQuota, type PromptResponse, type PromptUsage } from './protocol.js';

export interface OutcomeContext {
  conversationId: string;
  sessionId: string | undefined;
  /** The agent as people read it. */
  label: string;
}

const ZERO: Usage = { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };
const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Token counts from the answer: `usage` (Claude's adapter, Copilot), or Gemini's `_meta.quota`; zero otherwise. */
export function usageOf(res: PromptResponse | undefined): Usage {
  const u = (res as { usage?: PromptUsage } | undefined)?.usage;
  if (u && typeof u === 'object')
    return {
      inputTokens: n(u.inputTokens),
      outputTokens: n(u.outputTokens),
      cacheReadInputTokens: n(u.cachedReadTokens),
      cacheCreationInputTokens: n(u.cachedWriteTokens),
    };
  const q = (res?._meta as { quota?: GeminiQuota } | null | undefined)?.quota?.token_count;
  if (q) return { ...ZERO, inputTokens: n(q.input_tokens), outputTokens: n(q.output_tokens) };
  return { ...ZERO };
}

/** The turn's cost from the session's running total; undefined ("unknown", never 0) when the agent reports none. */
export function costOf(turn: AcpTurn): number | undefined {
  const end = turn.mapper.costUsd;
  if (end === undefined) return undefined;
  const start = turn.costAtStart ?? 0;
  // A new process starts its total again.
  return end >= start ? end - start : end;
}

/** Plain words for the stop reasons that end a turn short of an answer. */
export function stopNotice(stopReason: string, label: string): string | undefined {
  switch (stopReason) {
    case 'end_turn':
    case 'cancelled':
      return undefined;
    case 'refusal':
      return `${label} refused to go on with this request.`;
    case 'max_tokens':
      return `${label} stopped: it ran out of output tokens in the middle of its answer.`;
    case 'max_turn_requests':
      return `${label} stopped: it reached its limit of model requests for one turn.`;
    default:
      return `${label} ended the turn with an unknown stop reason (${stopReason}).`;
  }
}

function resultOf(res: PromptResponse, turn: AcpTurn, ctx: OutcomeContext, notice: string | undefined): TurnResult {
  const text = turn.mapper.texts.at(-1) ?? '';
  return {
    text: text || notice || '',
    sessionId: ctx.sessionId,
    usage: usageOf(res),
    costUsd: costOf(turn),
    durationMs: Date.now() - turn.startedAt,
    numTurns: 1,
    terminalReason: res.stopReason,
    isError: notice !== undefined,
    interrupted: res.stopReason === 'cancelled' && turn.interruptRequested,
    inputIds: turn.inputIds(),
    steered: turn.steered,
  };
}

export type Outcome = { ok: TurnResult; notice?: string } | { error: RudderError };

/** Decides a prompt's outcome from its answer. `refused`: the person refused a permission in this turn. */
export function promptOutcome(res: PromptResponse, turn: AcpTurn, ctx: OutcomeContext, refused: boolean): Outcome {
  const context = { conversationId: ctx.conversationId, sessionId: ctx.sessionId, unanswered: turn.inputIds() };
  if (turn.timedOut) return { error: new RudderError('AGENT_TURN_TIMEOUT', undefined, context) };
  if (res.stopReason === 'cancelled' && !turn.interruptRequested) {
    if (!refused)
      return { error: new RudderError('AGENT_TURN_FAILED', `${ctx.label} cancelled the turn on its own.`, context) };
    const notice = `${ctx.label} ended the turn when the permission was refused.`;
    return { ok: resultOf(res, turn, ctx, undefined), notice };
  }
  const notice = stopNotice(res.stopReason, ctx.label);
  return { ok: resultOf(res, turn, ctx, notice), ...(notice ? { notice } : {}) };
}

/** A JSON-RPC error as the agent sent it (the SDK's RequestError has this shape). */
function rpcShape(err: unknown): { code: number; message: string; data?: unknown } | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e && typeof e.code === 'number' && typeof e.message === 'string' && !(err instanceof RudderError)
    ? (err as { code: number; message: string; data?: unknown })
    : undefined;
}

const RATE_LIMIT = /\b429\b|rate.?limit|usage limit|quota/i;
const API_FAILURE = /\b(5\d\d|401|403)\b|overloaded|api error/i;

/** A failed request (session/prompt, session/new…) as the turn's typed error. */
export function requestError(err: unknown, ctx: OutcomeContext, unanswered: string[]): RudderError {
  const context = { conversationId: ctx.conversationId, sessionId: ctx.sessionId, unanswered };
  const rpc = rpcShape(err);
  if (!rpc) return asRudderError(err, 'AGENT_TURN_FAILED', context);
  const detail = `${ctx.label}: ${rpc.message}${rpc.data ? ` (${JSON.stringify(rpc.data).slice(0, 300)})` : ''}`;
  const full = { ...context, rpcCode: rpc.code };
  if (rpc.code === ACP_ERRORS.authRequired) return new RudderError('ACP_AUTH_REQUIRED', detail, full, err);
  if (RATE_LIMIT.test(detail)) return new RudderError('AGENT_RATE_LIMITED', detail, full, err);
  if (API_FAILURE.test(detail)) return new RudderError('AGENT_API_ERROR', detail, full, err);
  return new RudderError('AGENT_TURN_FAILED', detail, full, err);
}
