/** The web channel's bearer token: generated on first start, kept in the data dir (mode 0600). */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function loadOrCreateToken(dataDir: string): string {
  const file = path.join(dataDir, 'web-token');
  try {
    const t = fs.readFileSync(file, 'utf8').trim();
    if (t.length >= 32) return t;
  } catch {
    // First start: make one.
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(24).toString('base64url');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return token;
}

export function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
