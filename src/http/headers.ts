/**
 * Headers every web response carries: a Content-Security-Policy that forbids framing (no
 * clickjacking of Approve or Stop) and loads nothing from elsewhere, nosniff, and no Referer.
 */
import type http from 'node:http';

/** The policy: scripts, styles, connections and media from this origin only; no inline script or style. */
export function contentSecurityPolicy(): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    // A reply's audio is fetched with the token, then played from a blob: URL.
    "media-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** Set before anything else is written, so errors and 404s carry them too. */
export function setSecurityHeaders(res: http.ServerResponse): void {
  res.setHeader('content-security-policy', contentSecurityPolicy());
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  // For browsers that predate frame-ancestors.
  res.setHeader('x-frame-options', 'DENY');
}
