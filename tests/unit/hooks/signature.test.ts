/**
 * Signatures: GitHub's X-Hub-Signature-256 (GitHub's documented test vector, and its example payloads signed with
 * a test secret) and X-Rudder-Signature (t=<unix seconds>,v1=<hex HMAC of "<t>.<body>">).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signRudder, verifyGithub, verifyRudder } from '../../../src/hooks/signature.js';
import { example } from '../../support/github-examples.js';

const SECRET = 'test-secret-0123456789abcdef';
const bytes = (s: string) => Buffer.from(s, 'utf8');
const githubSign = (secret: string, body: string | Buffer) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('X-Hub-Signature-256', () => {
  it("passes GitHub's documented test vector", async () => {
    // docs.github.com, "Validating webhook deliveries": this secret and payload give this signature.
    const header = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(await verifyGithub("It's a Secret to Everybody", bytes('Hello, World!'), header)).toEqual({
      ok: true,
      scheme: 'github',
    });
  });

  it('passes an example payload signed with the secret; fails another secret or a changed byte', async () => {
    const body = JSON.stringify(example('check_run', (e) => e.action === 'completed'));
    const header = githubSign(SECRET, body);
    expect(await verifyGithub(SECRET, bytes(body), header)).toEqual({ ok: true, scheme: 'github' });
    expect(await verifyGithub('another-secret-0123456789', bytes(body), header)).toEqual({
      ok: false,
      why: 'the signature does not match',
    });
    expect(await verifyGithub(SECRET, bytes(body.replace('failure', 'success')), header)).toMatchObject({ ok: false });
    expect(await verifyGithub(SECRET, bytes(` ${body}`), header)).toMatchObject({ ok: false });
  });

  it('says what is wrong with a missing or malformed header', async () => {
    const body = bytes('{"a":1}');
    expect(await verifyGithub(SECRET, body, undefined)).toEqual({ ok: false, why: 'no x-hub-signature-256 header' });
    expect(await verifyGithub(SECRET, body, 'sha1=abc')).toEqual({
      ok: false,
      why: 'x-hub-signature-256 is not sha256=<hex>',
    });
    expect(await verifyGithub(SECRET, body, githubSign(SECRET, body).toUpperCase())).toMatchObject({ ok: false });
  });

  it('refuses a body that is not UTF-8 even when its bytes were signed (the text read would not be them)', async () => {
    const body = Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]);
    expect(await verifyGithub(SECRET, body, githubSign(SECRET, body))).toEqual({
      ok: false,
      why: 'the body is not UTF-8',
    });
  });
});

describe('X-Rudder-Signature', () => {
  const body = bytes(JSON.stringify({ service: 'api', status: 'deployed' }));

  it('is t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    const expected = createHmac('sha256', SECRET).update(`1700000000.${body.toString()}`).digest('hex');
    expect(signRudder(SECRET, body, 1_700_000_000)).toBe(`t=1700000000,v1=${expected}`);
    expect(signRudder(SECRET, body.toString(), 1_700_000_000)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('passes a body signed with the secret and gives its timestamp and digest', () => {
    const header = signRudder(SECRET, body, 1_700_000_000);
    expect(verifyRudder(SECRET, body, header)).toEqual({
      ok: true,
      scheme: 'rudder',
      timestamp: 1_700_000_000,
      digest: header.split('v1=')[1],
    });
  });

  it('fails another secret, a changed body, and a timestamp changed after signing', () => {
    const header = signRudder(SECRET, body, 1_700_000_000);
    const mismatch = { ok: false, why: 'the signature does not match' };
    expect(verifyRudder('another-secret-0123456789', body, header)).toEqual(mismatch);
    expect(verifyRudder(SECRET, bytes(`${body.toString()} `), header)).toEqual(mismatch);
    expect(verifyRudder(SECRET, body, header.replace('t=1700000000', 't=1800000000'))).toEqual(mismatch);
  });

  it('takes several v1 (a sender rotating its secret) when one matches', () => {
    const old = signRudder('old-secret-0123456789abcd', body, 1_700_000_000).split(',')[1];
    const current = signRudder(SECRET, body, 1_700_000_000);
    expect(verifyRudder(SECRET, body, `${current},${old}`)).toMatchObject({ ok: true });
    expect(verifyRudder(SECRET, body, `t=1700000000,${old}`)).toMatchObject({ ok: false });
  });

  it.each([
    [undefined, 'no x-rudder-signature header'],
    ['', 'no x-rudder-signature header'],
    ['v1=abc', 'x-rudder-signature must be t=<unix seconds>,v1=<hex>'],
    ['t=1700000000', 'x-rudder-signature must be t=<unix seconds>,v1=<hex>'],
    [`t=-5,v1=${'a'.repeat(64)}`, 'x-rudder-signature must be t=<unix seconds>,v1=<hex>'],
    [`t=1,t=2,v1=${'a'.repeat(64)}`, 'x-rudder-signature must be t=<unix seconds>,v1=<hex>'],
    [`t=1,v1=${'a'.repeat(63)}`, 'x-rudder-signature must be t=<unix seconds>,v1=<hex>'],
    [`t=1,v1=a=b`, 'x-rudder-signature has a malformed item'],
  ])('refuses the header %j: %s', (header, why) => {
    expect(verifyRudder(SECRET, body, header)).toEqual({ ok: false, why });
  });
});
