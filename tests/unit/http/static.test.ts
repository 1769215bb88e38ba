/**
 * The web app's static files: content types, caching, gzip and ETags, and no way out of the
 * build directory. Real HTTP with raw request targets (fetch would normalise "..").
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticFiles } from '../../../src/http/static.js';
import { tempDir } from '../../support/claude-rig.js';

let server: http.Server;
let port: number;
let root: string;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function raw(
  target: string,
  opts: { method?: string; headers?: Record<string, string>; to?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: opts.to ?? port, path: target, method: opts.method ?? 'GET', headers: opts.headers },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function serveDir(dir: string): Promise<{ server: http.Server; port: number }> {
  const files = new StaticFiles(dir);
  const s = http.createServer((req, res) => files.serve(req, res, (req.url ?? '/').split('?')[0]!));
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { server: s, port: (s.address() as AddressInfo).port };
}

beforeAll(async () => {
  const base = tempDir('static');
  root = path.join(base, 'web');
  fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
  fs.mkdirSync(path.join(root, 'icons'));
  fs.writeFileSync(path.join(root, 'index.html'), `<!doctype html><title>app</title>${'<p>shell</p>'.repeat(100)}`);
  fs.writeFileSync(path.join(root, 'sw.js'), 'self.addEventListener("fetch", () => {});');
  fs.writeFileSync(path.join(root, 'assets', 'app-Ab12Cd.js'), `console.log(${JSON.stringify('x'.repeat(2000))});`);
  fs.writeFileSync(path.join(root, 'assets', 'app-Ab12Cd.css'), 'body{margin:0}');
  fs.writeFileSync(path.join(root, 'manifest.webmanifest'), '{"name":"Rudder"}');
  fs.writeFileSync(path.join(root, 'icons', 'icon-192.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  fs.writeFileSync(path.join(root, '.env'), 'SECRET=hidden-file');
  fs.writeFileSync(path.join(base, 'secret.txt'), 'SECRET=outside');
  fs.symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'link-out.txt'));
  ({ server, port } = await serveDir(root));
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
});

describe('static files of the web app', () => {
  it('serves index.html at / under the strict CSP, revalidated on every load', async () => {
    const a = await raw('/');
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(a.headers['cache-control']).toBe('no-cache');
    expect(a.headers['content-security-policy']).toContain("script-src 'self'");
    expect(a.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(a.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(a.body.toString()).toContain('<title>app</title>');
  });

  it('gives each file its content type and cache policy', async () => {
    const cases: Array<[string, string, string]> = [
      ['/sw.js', 'text/javascript; charset=utf-8', 'no-cache'],
      ['/assets/app-Ab12Cd.js', 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
      ['/assets/app-Ab12Cd.css', 'text/css; charset=utf-8', 'public, max-age=31536000, immutable'],
      ['/manifest.webmanifest', 'application/manifest+json; charset=utf-8', 'no-cache'],
      ['/icons/icon-192.png', 'image/png', 'no-cache'],
    ];
    for (const [target, type, cache] of cases) {
      const a = await raw(target);
      expect([
        target,
        a.status,
        a.headers['content-type'],
        a.headers['cache-control'],
        a.headers['x-content-type-options'],
      ]).toEqual([target, 200, type, cache, 'nosniff']);
    }
  });

  it('gzips text when asked and answers 304 to a matching ETag', async () => {
    const plain = await raw('/assets/app-Ab12Cd.js');
    const zipped = await raw('/assets/app-Ab12Cd.js', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    const again = await raw('/assets/app-Ab12Cd.js', { headers: { 'if-none-match': String(plain.headers.etag) } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const head = await raw('/sw.js', { method: 'HEAD' });
    expect([head.status, head.body.length]).toEqual([200, 0]);
  });

  it('answers 404 for anything that is not a file of the build, and never leaves it', async () => {
    const targets = [
      '/nope.js',
      '/assets',
      '/assets/',
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/%2e%2e%5csecret.txt',
      '/.env',
      '/assets/%2e/../.env',
      '/link-out.txt',
      '/index.html%00.js',
      '/%E0%A4%A',
    ];
    for (const target of targets) {
      const a = await raw(target);
      expect([target, a.status]).toEqual([target, 404]);
      expect(a.body.toString()).not.toContain('SECRET');
      expect(JSON.parse(a.body.toString()).error.code).toBe('NOT_FOUND');
    }
  });

  it('refuses methods other than GET and HEAD', async () => {
    const a = await raw('/', { method: 'POST' });
    expect(a.status).toBe(405);
  });

  it('says how to build the app when it is not built', async () => {
    const empty = await serveDir(tempDir('static-empty'));
    try {
      const a = await raw('/', { to: empty.port });
      expect(a.status).toBe(503);
      expect(a.body.toString()).toContain('npm run build');
    } finally {
      await new Promise((r) => empty.server.close(r));
    }
  });
});
