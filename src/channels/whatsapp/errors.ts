/** How Baileys failures map to retry decisions, and how they read. */
import type { Verdict } from '../common/retry.js';

/** Baileys errors are Boom errors: the HTTP-like status sits in output.statusCode. */
export function statusOf(err: unknown): number | undefined {
  const s = (err as { output?: { statusCode?: unknown } } | undefined)?.output?.statusCode;
  return typeof s === 'number' ? s : undefined;
}

export function classify(err: unknown): Verdict {
  const status = statusOf(err);
  if (status === 429) return { kind: 'rate-limited', retryAfterMs: 5_000 };
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 428)
    return { kind: 'permanent' };
  return { kind: 'transient' };
}

/** WhatsApp has no token to keep out of the text: the pairing lives in the auth directory. */
export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
