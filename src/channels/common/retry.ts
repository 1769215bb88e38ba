/**
 * One place that decides "retry" or "rethrow" for platform calls. A platform's flood-control wait
 * (Telegram `retry_after`, Discord rate-limit headers, Slack `Retry-After`) is honoured by sleeping
 * before the same call is tried again, so parts sent one after another stay in order. When the
 * wait is too long or the attempts run out, the caller gets CHANNEL_RATE_LIMITED with
 * `retryAfterMs`, and the gateway keeps the reply owed.
 */

import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';

export type Verdict =
  | { kind: 'rate-limited'; retryAfterMs: number }
  /** Network trouble or a 5xx: worth another try after a short backoff. */
  | { kind: 'transient' }
  /** The platform refused the request itself (bad chat, no permission, too long). */
  | { kind: 'permanent' };

export interface RetryOptions {
  channel: string;
  /** Names the call in logs and errors, e.g. "sendMessage". */
  what: string;
  classify(err: unknown): Verdict;
  /** Describes an error for logs and RudderError text; must never include a token. */
  describe(err: unknown): string;
  /** Total tries including the first. */
  attempts?: number;
  /** A platform wait longer than this is not slept through; the reply stays owed instead. */
  maxWaitMs?: number;
  backoffMs?: number;
  signal?: AbortSignal;
  logger?: Logger;
}

export const DEFAULT_ATTEMPTS = 4;
export const DEFAULT_MAX_WAIT_MS = 60_000;

/** Sleeps for ms, or rejects early when the signal aborts (the channel is stopping). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export async function withRetry<T>(op: () => Promise<T>, o: RetryOptions): Promise<T> {
  const attempts = o.attempts ?? DEFAULT_ATTEMPTS;
  const maxWait = o.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const backoff = o.backoffMs ?? 500;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (err instanceof RudderError) throw err;
      const verdict = o.classify(err);
      const detail = `${o.what}: ${o.describe(err)}`;
      if (verdict.kind === 'permanent') {
        throw new RudderError('CHANNEL_SEND_FAILED', detail, { channel: o.channel, permanent: true });
      }
      const last = attempt >= attempts;
      if (verdict.kind === 'rate-limited') {
        const wait = Math.max(0, verdict.retryAfterMs);
        if (last || wait > maxWait) {
          throw new RudderError('CHANNEL_RATE_LIMITED', detail, { channel: o.channel, retryAfterMs: wait });
        }
        o.logger?.warn(
          { channel: o.channel, what: o.what, retryAfterMs: wait, attempt },
          'rate limited; waiting as the platform asked',
        );
        await sleep(wait, o.signal);
        continue;
      }
      if (last) throw new RudderError('CHANNEL_SEND_FAILED', detail, { channel: o.channel, permanent: false });
      const wait = backoff * 2 ** (attempt - 1);
      o.logger?.warn(
        { channel: o.channel, what: o.what, waitMs: wait, attempt, err: o.describe(err) },
        'platform call failed; retrying',
      );
      await sleep(wait, o.signal);
    }
  }
}

/**
 * Commits an inbound message, retrying a failing inbox a few times: Discord and WhatsApp do not
 * redeliver, so giving up loses the message. Stops waiting when the channel stops.
 */
export function commitWithRetry<T>(channel: string, commit: () => Promise<T>, signal: AbortSignal): Promise<T> {
  return withRetry(commit, {
    channel,
    what: 'inbox commit',
    classify: () => ({ kind: 'transient' }),
    describe: (e) => (e instanceof Error ? e.message : String(e)),
    attempts: 6,
    backoffMs: 200,
    signal,
  });
}

/** Replaces every secret in text with "***", so tokens never reach logs or error text. */
export function redact(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 6) out = out.split(s).join('***');
  return out;
}
