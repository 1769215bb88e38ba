/**
 * One POST to /hooks/<name> judged in order (unknown 404, too large 413, bad signature 401, no delivery id 400,
 * not a JSON object 400, else accepted), and the replay rule that follows: a delivery runs once, a stale or
 * far-future signed timestamp never runs. GitHub's example payloads, signed with a test secret.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type HooksConfig, hooksSchema } from '../../../src/config/hooks-schema.js';
import { type HeaderValues, judgeDelivery, MAX_BODY_BYTES } from '../../../src/hooks/delivery.js';
import { deliveryKey, forgetKeyAt, replayVerdict, timestampVerdict } from '../../../src/hooks/replay.js';
import { signRudder } from '../../../src/hooks/signature.js';
import { example } from '../../support/github-examples.js';

const SECRET = 'test-secret-0123456789abcdef';
const NOW = Date.parse('2025-06-01T12:00:00Z');
const NOW_S = NOW / 1000;

const hooks: HooksConfig = hooksSchema.parse({
  ci: { kind: 'github', secret: SECRET, project: 'api' },
  deploy: { secret: SECRET, prompt: 'Deploy of {{service}}: {{status}}', deliver: 'telegram:42' },
  off: { secret: SECRET, deliver: 'web:x', enabled: false },
});

function github(event: string, payload: unknown, delivery = '72d3162e-cc78-11e3-81ab-4c9367dc0958') {
  const body = Buffer.from(JSON.stringify(payload));
  const headers: HeaderValues = {
    'x-github-event': event,
    'x-github-delivery': delivery,
    'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
  };
  return { body, headers };
}

function generic(payload: unknown, t = NOW_S, extra: HeaderValues = {}) {
  const body = Buffer.from(JSON.stringify(payload));
  return { body, headers: { 'x-rudder-signature': signRudder(SECRET, body, t), ...extra } as HeaderValues };
}

describe('judging a delivery', () => {
  it('accepts a signed GitHub event with its delivery id as the key and its payload', async () => {
    const payload = example('check_run', (e) => e.action === 'completed');
    const { body, headers } = github('check_run', payload);
    expect(await judgeDelivery(hooks, 'ci', headers, body)).toEqual({
      kind: 'accepted',
      hook: 'ci',
      key: 'github:72d3162e-cc78-11e3-81ab-4c9367dc0958',
      event: 'check_run',
      payload,
    });
  });

  it('accepts a signed generic delivery keyed by its signature, or by its X-Rudder-Delivery', async () => {
    const a = generic({ service: 'api', status: 'ok' });
    const accepted = await judgeDelivery(hooks, 'deploy', a.headers, a.body);
    expect(accepted).toMatchObject({ kind: 'accepted', hook: 'deploy', timestamp: NOW_S });
    expect(accepted.kind === 'accepted' && accepted.key).toMatch(/^sig:\d+\.[0-9a-f]{64}$/);
    const b = generic({ service: 'api' }, NOW_S, { 'x-rudder-delivery': 'build-7781' });
    expect(await judgeDelivery(hooks, 'deploy', b.headers, b.body)).toMatchObject({ key: 'id:build-7781' });
  });

  it('404s an unknown or disabled hook, and the listener key', async () => {
    const { body, headers } = generic({ a: 1 });
    for (const name of ['nope', 'off', 'listen', '__proto__', 'constructor'])
      expect(await judgeDelivery(hooks, name, headers, body)).toMatchObject({ status: 404, code: 'HOOK_UNKNOWN' });
  });

  it('413s a body over 1 MB before looking at its signature', async () => {
    const body = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    expect(await judgeDelivery(hooks, 'deploy', {}, body)).toMatchObject({ status: 413, code: 'HOOK_TOO_LARGE' });
    const atLimit = Buffer.alloc(MAX_BODY_BYTES, 0x20);
    expect(await judgeDelivery(hooks, 'deploy', {}, atLimit)).toMatchObject({ status: 401 });
  });

  it("401s a missing or wrong signature, and the other kind's header (one scheme per hook)", async () => {
    const payload = example('issue_comment');
    const signed = github('issue_comment', payload);
    const refused = { kind: 'refused', status: 401, code: 'HOOK_SIGNATURE_INVALID' };
    expect(await judgeDelivery(hooks, 'ci', {}, signed.body)).toMatchObject(refused);
    const forged = { ...signed.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` };
    expect(await judgeDelivery(hooks, 'ci', forged, signed.body)).toMatchObject(refused);
    const rudder = generic(payload);
    expect(await judgeDelivery(hooks, 'ci', rudder.headers, rudder.body)).toMatchObject(refused);
    expect(await judgeDelivery(hooks, 'deploy', signed.headers, signed.body)).toMatchObject(refused);
    // A repeated signature header: which copy was meant is unknown, so none is taken.
    const twice = { ...signed.headers, 'x-hub-signature-256': [String(signed.headers['x-hub-signature-256'])] };
    expect(await judgeDelivery(hooks, 'ci', twice, signed.body)).toMatchObject(refused);
  });

  it('400s a GitHub delivery without its id or event, and a body that is not a JSON object', async () => {
    const { body, headers } = github('ping', example('ping'));
    const noId = { ...headers, 'x-github-delivery': undefined };
    expect(await judgeDelivery(hooks, 'ci', noId, body)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    const noEvent = { ...headers, 'x-github-event': undefined };
    expect(await judgeDelivery(hooks, 'ci', noEvent, body)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    const list = generic([1, 2]);
    expect(await judgeDelivery(hooks, 'deploy', list.headers, list.body)).toMatchObject({
      status: 400,
      code: 'HOOK_BODY_INVALID',
    });
    const text = Buffer.from('not json');
    const signedText = { 'x-rudder-signature': signRudder(SECRET, text, NOW_S) };
    expect(await judgeDelivery(hooks, 'deploy', signedText, text)).toMatchObject({ code: 'HOOK_BODY_INVALID' });
  });
});

describe('replay rule', () => {
  it('runs a fresh delivery once; the same key again is answered and not run', () => {
    expect(replayVerdict(NOW_S, NOW, true)).toEqual({ run: true });
    expect(replayVerdict(NOW_S, NOW, false)).toEqual({
      run: false,
      why: 'seen',
      text: 'delivered before: not run again',
    });
    expect(replayVerdict(undefined, NOW, true)).toEqual({ run: true });
    expect(replayVerdict(undefined, NOW, false)).toMatchObject({ run: false, why: 'seen' });
  });

  it('never runs a signed timestamp more than 5 minutes old or ahead, whatever the store says', () => {
    expect(timestampVerdict(NOW_S - 300, NOW)).toEqual({ run: true });
    expect(timestampVerdict(NOW_S + 300, NOW)).toEqual({ run: true });
    expect(timestampVerdict(NOW_S - 301, NOW)).toMatchObject({ run: false, why: 'stale' });
    expect(replayVerdict(NOW_S - 301, NOW, true)).toMatchObject({ run: false, why: 'stale' });
    expect(replayVerdict(NOW_S + 301, NOW, true)).toMatchObject({
      run: false,
      why: 'future',
      text: expect.stringContaining("check the sender's clock"),
    });
  });

  it('keys a delivery by its id, else its signature; a redelivery of GitHub keeps its id', () => {
    const gh = { ok: true as const, scheme: 'github' as const };
    expect(deliveryKey(gh, 'abc-123')).toEqual({ ok: true, key: 'github:abc-123' });
    expect(deliveryKey(gh, undefined)).toMatchObject({ ok: false });
    expect(deliveryKey(gh, 'a b')).toMatchObject({ ok: false });
    const sig = { ok: true as const, scheme: 'rudder' as const, timestamp: 5, digest: 'ab' };
    expect(deliveryKey(sig, undefined)).toEqual({ ok: true, key: 'sig:5.ab' });
    expect(deliveryKey(sig, 'x'.repeat(129))).toMatchObject({ ok: false });
  });

  it('forgets a signature key after twice the window, an id after 7 days', () => {
    expect(forgetKeyAt('sig:5.ab', NOW)).toBe(NOW + 10 * 60_000);
    expect(forgetKeyAt('github:abc', NOW)).toBe(NOW + 7 * 24 * 3600_000);
    expect(forgetKeyAt('id:build-1', NOW)).toBe(NOW + 7 * 24 * 3600_000);
  });
});
