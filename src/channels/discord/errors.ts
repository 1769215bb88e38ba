/**
 * How discord.js REST failures map to retry decisions. The REST client is built with
 * rejectOnRateLimit, so a 429 (or a bucket known to be empty) surfaces as RateLimitError carrying
 * the wait from Discord's rate-limit headers, and common/retry.ts does the waiting.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';
import { redact, type Verdict } from '../common/retry.js';

export function classify(err: unknown): Verdict {
  if (err instanceof RateLimitError) {
    return { kind: 'rate-limited', retryAfterMs: Math.max(err.retryAfter, err.timeToReset, err.sublimitTimeout ?? 0) };
  }
  if (err instanceof DiscordAPIError) return err.status >= 500 ? { kind: 'transient' } : { kind: 'permanent' };
  if (err instanceof HTTPError) return err.status >= 500 ? { kind: 'transient' } : { kind: 'permanent' };
  return { kind: 'transient' };
}

export function describe(err: unknown, token: string | undefined): string {
  if (err instanceof RateLimitError)
    return `rate limited on ${err.route} (${err.global ? 'global' : 'route'}), retry after ${err.retryAfter} ms`;
  if (err instanceof DiscordAPIError) return redact(`${err.status} ${err.code}: ${err.message}`, [token]);
  return redact(err instanceof Error ? err.message : String(err), [token]);
}

/** discord.js reports a refused token with this error code on login. */
export function isBadToken(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === 'TokenInvalid' || (err instanceof DiscordAPIError && err.status === 401);
}

/** The gateway closed with 4014: a privileged intent (Message Content) is not enabled for the bot. */
export function isDisallowedIntents(err: unknown): boolean {
  return /disallowed intents/i.test(err instanceof Error ? err.message : String(err));
}
