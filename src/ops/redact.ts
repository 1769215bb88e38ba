/**
 * Secrets never reach a log line: every line the logger writes passes through redact(), which
 * blanks the secrets registered here (the web token, a generated webhook secret), any `token=`
 * parameter of a URL, and bearer credentials.
 */

const REDACTED = '[redacted]';
const secrets = new Set<string>();
let secretPattern: RegExp | undefined;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Registers a value that must never be written to a log (shorter values would blank common words). */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < 8 || secrets.has(value)) return;
  secrets.add(value);
  secretPattern = new RegExp(
    [...secrets]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
}

/** `token` in a query or fragment (also JSON-escaped or percent-encoded), and `Bearer <credential>`. */
const TOKEN_PARAM = /((?:[?&#;]|\\u0026|%26|%3F)(?:token|access_token)(?:=|%3D))[^&#\s"'\\]+/gi;
const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]+/g;

export function redact(text: string): string {
  let out = text;
  if (secretPattern) out = out.replace(secretPattern, REDACTED);
  return out.replace(TOKEN_PARAM, `$1${REDACTED}`).replace(BEARER, `$1${REDACTED}`);
}

/** A URL (or path) fit for a log: the `token` parameter, query or fragment, blanked. */
export function redactUrl(url: string): string {
  return redact(url);
}
