/**
 * A finished Codex turn (turn/completed) as a TurnResult or a typed error. Success or failure is
 * read from the turn's status; a failure is typed from codexErrorInfo, so a rate limit takes the
 * same path as Claude's (AGENT_RATE_LIMITED with resetsAt when codex knows it).
 */
import { RudderError } from '../../../errors.js';
import type { TurnResult, Usage } from '../../session.js';
import type { v2 } from '../protocol/index.js';
import type { CodexTurn } from './codex-turn.js';
import type { TurnUsage } from './items-to-events.js';

export interface OutcomeContext {
  conversationId: string;
  threadId: string | undefined;
  pid: number | undefined;
  /** The account's last rate-limit snapshot (account/rateLimits/updated). */
  rateLimits: v2.RateLimitSnapshot | undefined;
}

/**
 * Codex counts cached input inside input_tokens (the OpenAI way); Rudder's Usage follows Claude's,
 * where input excludes the cache reads, so both backends add up the same way.
 */
export function usageOf(u: TurnUsage): Usage {
  return {
    inputTokens: Math.max(0, u.inputTokens - u.cachedInputTokens),
    outputTokens: u.outputTokens,
    cacheReadInputTokens: u.cachedInputTokens,
    cacheCreationInputTokens: u.cacheWriteInputTokens,
  };
}

function resultOf(t: v2.Turn, turn: CodexTurn, ctx: OutcomeContext): TurnResult {
  return {
    text: turn.items.texts.at(-1) ?? '',
    sessionId: ctx.threadId,
    usage: usageOf(turn.items.usage),
    // Codex reports tokens, not money (a cost would need a price table per model and provider): unknown, never 0.
    costUsd: undefined,
    durationMs: t.durationMs ?? Date.now() - turn.startedAt,
    numTurns: turn.items.usage.requests,
    terminalReason: t.status,
    isError: t.status !== 'completed',
    interrupted: t.status === 'interrupted',
    inputIds: turn.inputIds(),
    steered: turn.steered,
  };
}

/** The HTTP status codex forwards inside codexErrorInfo, when there is one. */
export function httpStatusOf(info: v2.CodexErrorInfo | null | undefined): number | undefined {
  if (!info || typeof info !== 'object') return undefined;
  for (const v of Object.values(info)) {
    const status = (v as { httpStatusCode?: unknown } | null)?.httpStatusCode;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

/** When an exhausted window resets (epoch ms): the latest reset of the windows at 100 %. */
export function resetsAtOf(limits: v2.RateLimitSnapshot | undefined): number | undefined {
  const windows = [limits?.primary, limits?.secondary].filter((w): w is v2.RateLimitWindow => !!w);
  const full = windows.filter((w) => w.usedPercent >= 100 && typeof w.resetsAt === 'number');
  if (full.length === 0) return undefined;
  return Math.max(...full.map((w) => w.resetsAt!)) * 1000;
}

const RATE_LIMIT_INFO = new Set(['usageLimitExceeded', 'rateLimitExceeded']);
const API_INFO = new Set(['internalServerError', 'serverOverloaded', 'unauthorized', 'badRequest', 'modelNotFound']);

/** The typed error of a failed turn. */
export function turnError(
  error: v2.TurnError | null | undefined,
  ctx: OutcomeContext,
  unanswered: string[],
): RudderError {
  const info = error?.codexErrorInfo;
  const status = httpStatusOf(info);
  const context = { conversationId: ctx.conversationId, pid: ctx.pid, unanswered, sessionId: ctx.threadId };
  const message = error?.message ?? 'the turn failed without a reason';
  const named = typeof info === 'string' ? info : undefined;
  if (status === 429 || (named && RATE_LIMIT_INFO.has(named))) {
    const resetsAt = resetsAtOf(ctx.rateLimits);
    return new RudderError('AGENT_RATE_LIMITED', message, {
      ...context,
      ...(resetsAt ? { resetsAt } : {}),
      apiErrorStatus: status ?? 429,
      codexErrorInfo: info,
    });
  }
  if (status !== undefined || (named && API_INFO.has(named)))
    return new RudderError('AGENT_API_ERROR', message, { ...context, apiErrorStatus: status, codexErrorInfo: info });
  return new RudderError('AGENT_TURN_FAILED', message, { ...context, codexErrorInfo: info ?? null });
}

/** Decides a finished turn's outcome. */
export function turnOutcome(
  t: v2.Turn,
  turn: CodexTurn,
  ctx: OutcomeContext,
): { ok: TurnResult } | { error: RudderError } {
  const unanswered = turn.inputIds();
  if (turn.timedOut)
    return {
      error: new RudderError('AGENT_TURN_TIMEOUT', undefined, { conversationId: ctx.conversationId, unanswered }),
    };
  switch (t.status) {
    case 'completed':
      return { ok: resultOf(t, turn, ctx) };
    case 'interrupted':
      // Asked for (interrupt(), or the person chose "stop the turn"): a result; otherwise a failure.
      if (turn.interruptRequested) return { ok: resultOf(t, turn, ctx) };
      return {
        error: new RudderError('AGENT_TURN_FAILED', 'Codex interrupted the turn on its own.', {
          conversationId: ctx.conversationId,
          unanswered,
        }),
      };
    default:
      return { error: turnError(t.error ?? turn.items.lastError, ctx, unanswered) };
  }
}

/** The result of an interrupted turn Rudder ended itself (codex did not confirm in time, or never got the turn). */
export function unconfirmedInterrupt(
  turn: CodexTurn,
  threadId: string | undefined,
  terminalReason = 'interrupt_unconfirmed',
): TurnResult {
  return {
    text: turn.items.texts.at(-1) ?? '',
    sessionId: threadId,
    usage: usageOf(turn.items.usage),
    costUsd: undefined,
    durationMs: Date.now() - turn.startedAt,
    numTurns: turn.items.usage.requests,
    terminalReason,
    isError: true,
    interrupted: true,
    inputIds: turn.inputIds(),
    steered: turn.steered,
  };
}
