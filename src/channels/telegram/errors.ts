/** How Telegram failures map to retry decisions, and how they are described without the token. */
import { GrammyError, HttpError } from 'grammy';
import { redact, type Verdict } from '../common/retry.js';

export function classify(err: unknown): Verdict {
  if (err instanceof GrammyError) {
    if (err.error_code === 429) return { kind: 'rate-limited', retryAfterMs: (err.parameters.retry_after ?? 1) * 1000 };
    return err.error_code >= 500 ? { kind: 'transient' } : { kind: 'permanent' };
  }
  // HttpError: the request never got an answer (network, DNS, timeout).
  return { kind: 'transient' };
}

export function describe(err: unknown, token: string | undefined): string {
  if (err instanceof GrammyError) return redact(`${err.error_code} ${err.description}`, [token]);
  if (err instanceof HttpError) {
    const inner = err.error instanceof Error ? err.error.message : String(err.error);
    return redact(`network error: ${inner}`, [token]);
  }
  return redact(err instanceof Error ? err.message : String(err), [token]);
}

/** Telegram's answer when the token is wrong (401) or malformed (404 on every method). */
export function isBadToken(err: unknown): boolean {
  return err instanceof GrammyError && (err.error_code === 401 || err.error_code === 404);
}

/** The HTML could not be parsed; the part is sent again as plain text. */
export function isEntityError(err: unknown): boolean {
  return (
    err instanceof GrammyError &&
    err.error_code === 400 &&
    /can't parse entities|unsupported start tag|can't find end tag/i.test(err.description)
  );
}

/** A reply target that vanished (deleted message): the reply is sent without it. */
export function isMissingReplyTarget(err: unknown): boolean {
  return (
    err instanceof GrammyError &&
    err.error_code === 400 &&
    /message to be replied not found|replied message not found/i.test(err.description)
  );
}
