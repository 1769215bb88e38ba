/**
 * The web app's files (its build in dist/web/: index.html, sw.js, manifest.webmanifest, icons/,
 * hashed assets/). GET and HEAD only; a path that is not a file of the build is a 404, and no
 * path can reach outside the build (no "..", no hidden files, no symlink out, no backslash).
 * index.html and the service worker are revalidated on every load (so a new build is picked up);
 * hashed assets are cached for a year. Text files are gzipped once and kept in memory.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { HttpError, sendError } from './errors.js';
import { contentSecurityPolicy } from './headers.js';

/** dist/web of this package, from src/channels/web or dist/channels/web alike. */
export const APP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/web');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.webmanifest', '.svg', '.txt']);
const REVALIDATE = 'no-cache';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const NOT_BUILT =
  `<!doctype html><meta charset="utf-8"><title>Rudder</title><p>The web app is not built. ` +
  `Run <code>npm run build</code> in the Rudder folder (<code>npm install</code> runs it), then reload.</p>`;

interface Cached {
  mtimeMs: number;
  size: number;
  body: Buffer;
  gzip?: Buffer;
  etag: string;
}

export class StaticFiles {
  private readonly root: string;
  private readonly cache = new Map<string, Cached>();

  constructor(dir: string = APP_DIR) {
    this.root = path.resolve(dir);
  }

  /** Answers a request for a path outside /api: the file, a 304, a 404 or a 405. */
  serve(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): void {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD')
      return sendError(res, new HttpError('METHOD_NOT_ALLOWED', `Use GET for ${pathname}.`));
    const rel = pathname === '/' ? 'index.html' : this.relative(pathname);
    const file = rel === undefined ? undefined : this.lookup(rel);
    if (!file || rel === undefined) {
      if (rel === 'index.html') return this.notBuilt(res);
      return sendError(res, new HttpError('NOT_FOUND', `No route ${method} ${pathname}.`));
    }
    const ext = path.extname(rel).toLowerCase();
    const headers: http.OutgoingHttpHeaders = {
      'content-type': TYPES[ext] ?? 'application/octet-stream',
      'cache-control': rel.startsWith('assets/') ? IMMUTABLE : REVALIDATE,
      etag: file.etag,
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
    };
    // The strict policy for the app's own document (the edge may already have set one for every answer).
    if (ext === '.html' && !res.hasHeader('content-security-policy'))
      Object.assign(headers, { 'content-security-policy': contentSecurityPolicy(), 'x-frame-options': 'DENY' });
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, headers);
      return void res.end();
    }
    const gzip = file.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? file.gzip! : file.body;
    if (gzip) headers['content-encoding'] = 'gzip';
    headers['content-length'] = body.length;
    res.writeHead(200, headers);
    res.end(method === 'HEAD' ? undefined : body);
  }

  /** The path inside the build, or undefined when it is not a plain one. */
  private relative(pathname: string): string | undefined {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return undefined;
    }
    if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
    const segments = decoded.split('/').filter(Boolean);
    // No "." or ".." and no hidden files: only what the build wrote.
    if (!segments.length || segments.some((s) => s.startsWith('.'))) return undefined;
    return segments.join('/');
  }

  private lookup(rel: string): Cached | undefined {
    const full = path.join(this.root, rel);
    if (!full.startsWith(this.root + path.sep)) return undefined;
    let stat: fs.Stats;
    let real: string;
    try {
      stat = fs.statSync(full);
      real = fs.realpathSync(full);
    } catch {
      return undefined;
    }
    if (!stat.isFile() || !real.startsWith(fs.realpathSync(this.root) + path.sep)) return undefined;
    const hit = this.cache.get(rel);
    if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit;
    const body = fs.readFileSync(full);
    const entry: Cached = {
      mtimeMs: stat.mtimeMs,
      size: stat.size,
      body,
      etag: `"${stat.size.toString(36)}-${Math.floor(stat.mtimeMs).toString(36)}"`,
      ...(COMPRESSIBLE.has(path.extname(rel).toLowerCase()) && body.length > 512 ? { gzip: gzipSync(body) } : {}),
    };
    this.cache.set(rel, entry);
    return entry;
  }

  private notBuilt(res: http.ServerResponse): void {
    res.writeHead(503, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': contentSecurityPolicy(),
    });
    res.end(NOT_BUILT);
  }
}
