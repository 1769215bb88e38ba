/** How Slack Web API failures map to retry decisions (the client rejects rate-limited calls). */
import { webApi } from '@slack/bolt';
import { redact, type Verdict } from '../common/retry.js';

interface SlackErr {
  code?: string;
  retryAfter?: number;
  statusCode?: number;
  data?: { error?: string };
  message?: string;
}

const { ErrorCode } = webApi;

/** Platform errors that say "try later" rather than "this request is wrong". */
const TRANSIENT = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);

export function classify(err: unknown): Verdict {
  const e = err as SlackErr;
  switch (e?.code) {
    case ErrorCode.RateLimitedError:
      return { kind: 'rate-limited', retryAfterMs: (e.retryAfter ?? 1) * 1000 };
    case ErrorCode.PlatformError:
      return TRANSIENT.has(e.data?.error ?? '') ? { kind: 'transient' } : { kind: 'permanent' };
    case ErrorCode.HTTPError:
      return (e.statusCode ?? 500) >= 500 ? { kind: 'transient' } : { kind: 'permanent' };
    default:
      return { kind: 'transient' };
  }
}

export function platformError(err: unknown): string | undefined {
  const e = err as SlackErr;
  return e?.code === ErrorCode.PlatformError ? e.data?.error : undefined;
}

export function describe(err: unknown, secrets: Array<string | undefined>): string {
  const e = err as SlackErr;
  if (e?.code === ErrorCode.RateLimitedError) return `rate limited, retry after ${e.retryAfter ?? '?'} s`;
  const p = platformError(err);
  if (p) return `Slack answered "${p}"`;
  return redact(e?.message ?? String(err), secrets);
}

/** Errors meaning the token itself is wrong, revoked or lacks the app-level scope. */
export function isBadToken(err: unknown): boolean {
  return [
    'invalid_auth',
    'not_authed',
    'account_inactive',
    'token_revoked',
    'token_expired',
    'not_allowed_token_type',
    'missing_scope',
  ].includes(platformError(err) ?? '');
}
