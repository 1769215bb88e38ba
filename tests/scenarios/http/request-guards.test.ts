/**
 * The web channel's guards, in a real gateway: the Host header (DNS rebinding), the Origin, the
 * token only in the header except on the event stream, JSON-only POSTs, security headers on
 * every answer, and a 400 for every malformed request target.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { startInProcess } from '../../support/gateway-rig.js';
import { type RawRequest, rawRequest } from '../../support/raw-http.js';

let gw: Awaited<ReturnType<typeof startInProcess>>;
let port: string;
beforeAll(async () => {
  gw = await startInProcess({
    agent: { claudeBin: '/bin/false', env: { HOME: tempDir('chome') } },
    web: { port: 0, allowedHosts: ['rudder.example.com', 'proxy.example:8443'] },
  });
  port = new URL(gw.ep.base).port;
});
afterAll(async () => {
  await gw?.stop();
});

const auth = () => ({ authorization: `Bearer ${gw.ep.token}` });
const send = (r: RawRequest) => rawRequest(gw.ep.base, r);
const postHelp = (headers: Record<string, string>, target = '/api/conversations/guard/messages') =>
  send({
    method: 'POST',
    target,
    headers: { ...auth(), 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ text: '/help' }),
  });
const code = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

describe('Host header', () => {
  it('answers the bound address by its loopback names, and web.allowedHosts', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `LOCALHOST:${port}`,
      'rudder.example.com',
      'rudder.example.com:443',
      'proxy.example:8443',
    ]) {
      const r = await send({ target: '/api/status', headers: { ...auth(), host } });
      expect(r.status, host).toBe(200);
    }
  });

  it('refuses any other name with 421, before the token is even looked at (DNS rebinding)', async () => {
    for (const host of [
      'attacker.example',
      `attacker.example:${port}`,
      `127.0.0.1:${Number(port) + 1}`,
      '127.0.0.1',
      `127.0.0.2:${port}`,
      'proxy.example:8444',
      `localhost.:${port}`,
      '',
    ]) {
      for (const target of ['/', '/healthz', '/api/status', '/api/conversations/x/events?token=whatever']) {
        const r = await send({ target, headers: { ...auth(), host } });
        expect(r.status, `${host} ${target}`).toBe(421);
        expect(code(r.body)).toBe('HOST_NOT_ALLOWED');
        expect(r.body).not.toContain('<script');
      }
    }
  });
});

describe('Origin header', () => {
  it('lets the page itself through, and refuses other origins with 403', async () => {
    expect((await postHelp({ origin: `http://127.0.0.1:${port}` })).status).toBe(202);
    expect((await postHelp({ origin: 'https://rudder.example.com' })).status).toBe(202);
    expect((await postHelp({})).status).toBe(202); // curl and rudder send no Origin
    for (const origin of [
      'http://attacker.example',
      `http://attacker.example:${port}`,
      'null',
      `https://127.0.0.1:${Number(port) + 1}`,
      `file://`,
      `http://127.0.0.1:${port}/path`,
      'garbage',
    ]) {
      const r = await postHelp({ origin });
      expect(r.status, origin).toBe(403);
      expect(code(r.body)).toBe('ORIGIN_NOT_ALLOWED');
      const get = await send({ target: '/api/conversations', headers: { ...auth(), origin } });
      expect(get.status, origin).toBe(403);
    }
  });
});

describe('token and content type', () => {
  it('takes ?token= on the event stream only', async () => {
    const t = encodeURIComponent(gw.ep.token);
    const sse = await send({ target: `/api/conversations/tok/events?token=${t}`, headersOnly: true });
    expect(sse.status).toBe(200);
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    for (const target of [
      `/api/status?token=${t}`,
      `/api/conversations?token=${t}`,
      `/api/conversations/tok/messages?token=${t}`,
    ]) {
      expect((await send({ target })).status, target).toBe(401);
    }
    const post = await send({
      method: 'POST',
      target: `/api/conversations/tok/messages?token=${t}`,
      headers: { 'content-type': 'application/json' },
      body: '{"text":"/help"}',
    });
    expect(post.status).toBe(401);
  });

  it('takes POST bodies as application/json only (415 otherwise), so no form can post here', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/jsonx',
      '',
    ]) {
      const r = await postHelp({ 'content-type': type });
      expect(r.status, type).toBe(415);
      expect(code(r.body)).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const none = await send({
      method: 'POST',
      target: '/api/conversations/guard/messages',
      headers: auth(),
      body: '{"text":"/help"}',
    });
    expect(none.status).toBe(415);
    for (const type of ['application/json', 'Application/JSON; charset=UTF-8', 'application/json;charset="utf-8"']) {
      expect((await postHelp({ 'content-type': type })).status, type).toBe(202);
    }
    expect(
      (
        await send({
          method: 'POST',
          target: '/api/conversations',
          headers: { ...auth(), 'content-type': 'text/plain' },
          body: '',
        })
      ).status,
    ).toBe(415);
  });
});

describe('security headers', () => {
  it('are on every answer: the page, JSON, errors and the event stream', async () => {
    const answers = [
      await send({ target: '/' }),
      await send({ target: '/healthz' }),
      await send({ target: '/api/status', headers: auth() }),
      await send({ target: '/api/status' }),
      await send({ target: '/nope' }),
      await send({ target: '/api/%zz' }),
      await send({ target: '/', headers: { host: 'attacker.example' } }),
      await send({ target: '/api/conversations/h/events', headers: auth(), headersOnly: true }),
    ];
    for (const r of answers) {
      const csp = String(r.headers['content-security-policy']);
      expect(csp, String(r.status)).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('serves the app with nothing inline: every script from a file, no style element, no nonce to forge', async () => {
    const a = await send({ target: '/' });
    expect(a.status).toBe(200);
    const csp = String(a.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).toMatch(/style-src 'self';/);
    expect(csp).not.toMatch(/nonce-|unsafe-inline/);
    const scripts = a.body.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/\ssrc="\/assets\//);
    expect(a.body).not.toMatch(/<style\b|\sstyle="|\son[a-z]+=/i);
  });
});

describe('malformed request targets', () => {
  it('are a 400 that says what was wrong, never a 500', async () => {
    const targets = [
      '/api/conversations/x/permissions/%E0%A4%A',
      '/api/conversations/%E0%A4%A/messages',
      '/api/%',
      '/%ZZ',
      '/api/conversations/x/events/%C0%AF',
      'http://attacker.example/api/status',
      '*',
    ];
    for (const target of targets) {
      for (const method of ['GET', 'POST']) {
        const r = await send({
          method,
          target,
          headers: { ...auth(), 'content-type': 'application/json' },
          body: method === 'POST' ? '{"allow":true}' : undefined,
        });
        expect(r.status, `${method} ${target}`).toBe(400);
        expect(code(r.body)).toBe('BAD_REQUEST');
      }
    }
    expect((await send({ target: '/api/%zz' })).body).toMatch(/not valid URL encoding/);
    expect((await send({ target: '/healthz' })).status).toBe(200);
  });
});
