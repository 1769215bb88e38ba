/**
 * Headers every web response carries: a Content-Security-Policy that forbids framing (no
 * clickjacking of Approve or Stop) and loads nothing from elsewhere, nosniff, and no Referer.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';

/**
 * The policy: scripts, styles and connections from this origin only. `nonce` admits the inline
 * <script> and <style> of a page that carries it (today's one-document page); without a nonce it
 * is the strict form a page built from static files needs.
 */
export function contentSecurityPolicy(opts: { nonce?: string } = {}): string {
  const inline = opts.nonce ? ` 'nonce-${opts.nonce}'` : '';
  return [
    "default-src 'self'",
    `script-src 'self'${inline}`,
    `style-src 'self'${inline}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** Set before anything else is written, so errors and 404s carry them too. */
export function setSecurityHeaders(res: http.ServerResponse, nonce?: string): void {
  res.setHeader('content-security-policy', contentSecurityPolicy({ nonce }));
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  // For browsers that predate frame-ancestors.
  res.setHeader('x-frame-options', 'DENY');
}
