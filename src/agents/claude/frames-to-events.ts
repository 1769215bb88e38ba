/**
 * Turns the content frames of one turn into TurnEvents, and a result frame into a TurnResult
 * or a typed error. Shared by the persistent and the one-shot session.
 */
import { RudderError } from '../../errors.js';
import type { TurnBase } from '../common/turn-base.js';
import { type ModelUsage, TOOL_EXCERPT_CHARS, type TurnResult, type Usage } from '../session.js';
import type { ContentBlock, OutputFrame, ResultFrame, ResultModelUsage, SystemOtherFrame } from './protocol/output.js';
import { RETRY_STATUS_KEY, RetryStatus } from './retry-status.js';

const RATE_LIMIT_PREFIXES = ["You've hit your", "You've reached your", 'API Error: Request rejected (429)'];

export function isRateLimitText(text: string | undefined): boolean {
  return !!text && RATE_LIMIT_PREFIXES.some((p) => text.startsWith(p));
}

const excerptOf = (content: unknown): string => {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .map((b: { text?: unknown } | null | undefined) => (typeof b?.text === 'string' ? b.text : ''))
            .join('\n')
        : '';
  return text.length > TOOL_EXCERPT_CHARS ? `${text.slice(0, TOOL_EXCERPT_CHARS)}…` : text;
};

/** What one turn has seen so far, beyond its events. */
export class TurnFrames {
  readonly texts: string[] = [];
  /** The `error` of a synthetic assistant frame ("rate_limit", "server_error"...). */
  apiError: string | undefined;
  /** Epoch ms from a rejected rate_limit_event. */
  rateLimitResetsAt: number | undefined;
  rateLimitRejected = false;
  /** Names the cause of a failed model request, from the endpoint the agent's environment names. */
  readonly retry: RetryStatus;
  /** Retry lines go out in order, each once its cause is known. */
  private retryLines: Promise<void> = Promise.resolve();

  /** env: the agent's environment (where its requests go); the public API when not given. */
  constructor(env: Record<string, string | undefined> = {}) {
    this.retry = new RetryStatus(env);
  }

  /** Handles a content frame; returns false for frames that are not about the turn's content. */
  handle(frame: OutputFrame, turn: TurnBase): boolean {
    switch (frame.type) {
      case 'assistant': {
        if (frame.parent_tool_use_id) return true; // a subagent's own traffic
        // A synthetic frame ("API Error: …") is no model output: the turn's error says it once, with cause and fix.
        if (frame.error) {
          this.apiError = frame.error;
          return true;
        }
        for (const block of frame.message.content ?? []) this.block(block, turn);
        return true;
      }
      case 'user': {
        if (frame.isReplay || frame.parent_tool_use_id) return true;
        const content = frame.message.content;
        if (Array.isArray(content)) {
          for (const b of content) {
            if (b.type === 'tool_result') {
              const r = b as Extract<ContentBlock, { type: 'tool_result' }>;
              turn.emit({
                type: 'tool-result',
                toolUseId: r.tool_use_id,
                isError: !!r.is_error,
                excerpt: excerptOf(r.content),
              });
            }
          }
        }
        return true;
      }
      case 'stream_event': {
        if (frame.parent_tool_use_id) return true;
        const d = frame.event.delta;
        if (frame.event.type === 'content_block_delta' && d?.type === 'text_delta' && typeof d.text === 'string')
          turn.emit({ type: 'text-delta', text: d.text });
        return true;
      }
      case 'rate_limit_event': {
        const info = frame.rate_limit_info;
        if (info.status === 'rejected') {
          this.rateLimitRejected = true;
          if (typeof info.resetsAt === 'number') this.rateLimitResetsAt = info.resetsAt * 1000;
        }
        return true;
      }
      case 'system': {
        if (frame.subtype === 'api_retry') this.retried(frame as SystemOtherFrame, turn);
        return frame.subtype !== 'init';
      }
      default:
        return false;
    }
  }

  /** One status that updates (same key) and names the cause; a line whose turn ended meanwhile is dropped. */
  private retried(frame: SystemOtherFrame, turn: TurnBase): void {
    const cause = this.retry.cause(frame);
    this.retryLines = this.retryLines.then(async () => {
      const failure = await cause;
      turn.emit({ type: 'status', key: RETRY_STATUS_KEY, message: RetryStatus.line(frame, failure) });
    });
  }

  private block(block: ContentBlock, turn: TurnBase): void {
    if (block.type === 'text' && typeof block.text === 'string') {
      this.texts.push(block.text);
      turn.emit({ type: 'text', text: block.text });
    } else if (block.type === 'tool_use') {
      const b = block as Extract<ContentBlock, { type: 'tool_use' }>;
      turn.emit({ type: 'tool-use', id: b.id, name: b.name, input: b.input });
    }
  }
}

/** A result's running totals for the session (total_cost_usd, modelUsage). */
export interface RunningTotals {
  costUsd: number;
  models: Record<string, ResultModelUsage>;
}

/** The totals of a process that started a new session: nothing spent yet. */
export const NO_TOTALS: RunningTotals = { costUsd: 0, models: {} };

/** The running totals a result reports, to be the next turn's `before`. */
export function totalsOf(frame: ResultFrame, last: RunningTotals | undefined): RunningTotals | undefined {
  if (typeof frame.total_cost_usd !== 'number') return last;
  const models = frame.modelUsage && typeof frame.modelUsage === 'object' ? frame.modelUsage : {};
  return { costUsd: frame.total_cost_usd, models };
}

export interface ResultContext {
  inputIds: string[];
  steered: number;
  interruptRequested: boolean;
  /**
   * The running totals before this turn, for a CLI that does not report a turn's own figures; undefined when
   * not known (the first result of a process that resumed a session: its totals start at the session's).
   */
  before: RunningTotals | undefined;
  conversationId: string;
  pid: number | undefined;
}

function usageOf(frame: ResultFrame): Usage {
  const u = frame.usage ?? {};
  return {
    inputTokens: u.input_tokens ?? 0,
    outputTokens: u.output_tokens ?? 0,
    cacheReadInputTokens: u.cache_read_input_tokens ?? 0,
    cacheCreationInputTokens: u.cache_creation_input_tokens ?? 0,
  };
}

const n = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Each model's figures less what they were before (nothing before: the figures as they are). */
export function modelUsageDelta(
  now: Record<string, ResultModelUsage> | undefined,
  before: Record<string, ResultModelUsage> = {},
): Record<string, ModelUsage> | undefined {
  if (!now || typeof now !== 'object') return undefined;
  const out: Record<string, ModelUsage> = {};
  for (const [model, u] of Object.entries(now)) {
    const b = before[model] ?? {};
    const d: ModelUsage = {
      inputTokens: Math.max(0, n(u.inputTokens) - n(b.inputTokens)),
      outputTokens: Math.max(0, n(u.outputTokens) - n(b.outputTokens)),
      cacheReadInputTokens: Math.max(0, n(u.cacheReadInputTokens) - n(b.cacheReadInputTokens)),
      cacheCreationInputTokens: Math.max(0, n(u.cacheCreationInputTokens) - n(b.cacheCreationInputTokens)),
      costUsd: typeof u.costUSD === 'number' ? Math.max(0, u.costUSD - n(b.costUSD)) : undefined,
    };
    // A model this turn did not call is left out.
    if (d.inputTokens || d.outputTokens || d.cacheReadInputTokens || d.cacheCreationInputTokens || d.costUsd)
      out[model] = d;
  }
  return out;
}

/** Decides a turn's outcome. Success or error is read from is_error, never from subtype. */
export function classifyResult(
  frame: ResultFrame,
  seen: TurnFrames,
  ctx: ResultContext,
): { ok: TurnResult } | { error: RudderError } {
  const result = resultOf(frame, seen, ctx);
  if (!frame.is_error) return { ok: result };
  if (
    ctx.interruptRequested &&
    (frame.terminal_reason?.startsWith('aborted') || frame.subtype === 'error_during_execution')
  ) {
    return { ok: { ...result, interrupted: true } };
  }
  return { error: turnError(frame, seen, ctx) };
}

/**
 * What this turn cost, counted once: the CLI's own figures for the turn when it gives them, else how far the
 * running totals moved since the last result; unknown when the totals before it are not known.
 */
export function turnShare(
  frame: ResultFrame,
  before: RunningTotals | undefined,
): { costUsd: number | undefined; models: Record<string, ModelUsage> | undefined } {
  const own = frame.model_usage_since_last_result;
  if (own && typeof own === 'object') {
    const figures = Object.values(own);
    // A model the CLI could not price leaves the turn's cost unknown, never counted as less.
    const priced = figures.every((u) => typeof u.costUSD === 'number');
    const costUsd = priced ? figures.reduce((sum, u) => sum + Math.max(0, n(u.costUSD)), 0) : undefined;
    return { costUsd, models: modelUsageDelta(own) };
  }
  const total = frame.total_cost_usd;
  if (!before) return { costUsd: undefined, models: undefined };
  return {
    costUsd: typeof total === 'number' ? Math.max(0, total - before.costUsd) : undefined,
    models: modelUsageDelta(frame.modelUsage, before.models),
  };
}

/** The result as the frame reports it, with this turn's own share of what the session spent. */
function resultOf(frame: ResultFrame, seen: TurnFrames, ctx: ResultContext): TurnResult {
  const { costUsd, models } = turnShare(frame, ctx.before);
  return {
    text: typeof frame.result === 'string' ? frame.result : seen.texts.join('\n\n'),
    sessionId: frame.session_id,
    usage: usageOf(frame),
    costUsd,
    ...(models ? { modelUsage: models } : {}),
    durationMs: frame.duration_ms ?? 0,
    numTurns: frame.num_turns ?? 0,
    terminalReason: frame.terminal_reason,
    isError: frame.is_error,
    interrupted: false,
    inputIds: ctx.inputIds,
    steered: ctx.steered,
  };
}

/** A failed turn, typed: rate limited, the model request failed, the session is unknown, or another failure. */
function turnError(frame: ResultFrame, seen: TurnFrames, ctx: ResultContext): RudderError {
  const context = {
    conversationId: ctx.conversationId,
    pid: ctx.pid,
    unanswered: ctx.inputIds,
    sessionId: frame.session_id,
  };
  const rateLimited =
    frame.api_error_status === 429 ||
    seen.rateLimitRejected ||
    seen.apiError === 'rate_limit' ||
    isRateLimitText(frame.result);
  if (rateLimited)
    return new RudderError('AGENT_RATE_LIMITED', frame.result, {
      ...context,
      ...(seen.rateLimitResetsAt ? { resetsAt: seen.rateLimitResetsAt } : {}),
      apiErrorStatus: frame.api_error_status ?? 429,
    });
  if (typeof frame.api_error_status === 'number' || seen.apiError) {
    const failure = seen.retry.explain({ text: frame.result, status: frame.api_error_status, error: seen.apiError });
    const summary = failure.summary.charAt(0).toUpperCase() + failure.summary.slice(1);
    return new RudderError('AGENT_API_ERROR', `${summary}. ${failure.fix}`, {
      ...context,
      apiErrorStatus: frame.api_error_status ?? undefined,
      apiError: seen.apiError,
      cause: failure.cause,
      code: failure.code,
      fix: failure.fix,
      cliText: frame.result,
    });
  }
  const why = frame.result ?? frame.errors?.join('; ') ?? frame.subtype;
  if (/No conversation found with session ID/i.test(why))
    return new RudderError('AGENT_SESSION_NOT_FOUND', why, context);
  return new RudderError('AGENT_TURN_FAILED', `${frame.subtype}: ${why}`, {
    ...context,
    subtype: frame.subtype,
    terminalReason: frame.terminal_reason,
  });
}

/** The result of a turn stopped on request whose process had to be killed: no result frame came. */
export function interruptedResult(
  seen: TurnFrames,
  sessionId: string | undefined,
  inputIds: string[],
  terminalReason: string,
): TurnResult {
  return {
    text: seen.texts.join('\n\n'),
    sessionId,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
    // Killed before its result: what it cost is not known.
    costUsd: undefined,
    durationMs: 0,
    numTurns: 0,
    terminalReason,
    isError: true,
    interrupted: true,
    inputIds,
    steered: 0,
  };
}
