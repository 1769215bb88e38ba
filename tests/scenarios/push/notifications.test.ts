/**
 * Web Push from the gateway, end to end on this machine: the real CLI against the mock Messages
 * API, the real web-push library sending to a fake push service over HTTPS, which checks each
 * push's VAPID signature and decrypts it with the device's keys (RFC 8291) as a browser would.
 * A notification's buttons answer through POST /api/push/action with the token the push carried
 * (no bearer token: a service worker has none): once, owner-only, through the same desk.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnView } from '../../../src/gateway/steps/types.js';
import type { PushPayload } from '../../../src/http/wire.js';
import { mockAgentEnv, tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeDevice, type FakePushService, type ReceivedPush, startFakePush } from '../../support/fake-push.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

type Gateway = Awaited<ReturnType<typeof startInProcess>>;
let mock: MockApi;
let push: FakePushService;
let budget = 30_000;
const gateways: Gateway[] = [];
/** The gateway of the permission tests; its first turn is what the waits are scaled by. */
let relay: Gateway;

beforeAll(async () => {
  mock = await startMockApi();
  push = await startFakePush();
  relay = await gateway({ permissionMode: 'relay' }, { push: { subject: 'mailto:owner@example.com' } });
  // A loaded machine is slow everywhere: the waits scale with how long a first turn (a CLI start) takes now.
  const t0 = Date.now();
  const w = relay.watch('warm-up');
  await w.ready;
  await w.waitReply((await relay.post('warm-up', 'hello tag:warm')).messageId, 'reply', 55_000);
  budget = Math.min(50_000, Math.max(30_000, (Date.now() - t0) * 8));
});
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await push?.close();
  await mock?.close();
});

async function gateway(agent: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const gw = await startInProcess(
    { agent: agentConfig(mock.url, tempDir('chome'), agent), ...extra },
    { pushAgent: push.agent },
  );
  gateways.push(gw);
  return gw;
}

async function subscribe(gw: Gateway): Promise<FakeDevice & { sub: string }> {
  const device = push.device();
  const res = await gw.api('POST', '/api/push/subscriptions', device.subscription);
  expect(res.status).toBe(201);
  return { ...device, sub: ((await res.json()) as { id: string }).id };
}

/** A button's press as the service worker makes it: the token alone, no Authorization header. */
async function press(gw: Gateway, token: string) {
  const res = await fetch(`${gw.ep.base}/api/push/action`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const pushesTo = (d: FakeDevice, kind?: string) =>
  push.received.filter((p) => p.device === d.id && (!kind || p.json<PushPayload>().kind === kind));
const waitPush = (d: FakeDevice, pred: (p: PushPayload) => boolean) =>
  push.waitFor((p) => p.device === d.id && pred(p.json<PushPayload>()), budget);
const button = (p: ReceivedPush, action: string) => p.json<PushPayload>().buttons.find((b) => b.action === action)!;

describe('permission requests pushed (real CLI, relay, fake push service)', () => {
  let gw: Gateway;
  beforeAll(() => {
    gw = relay;
  });

  it('reaches every device encrypted and signed; Approve from the lock screen runs the tool once', async () => {
    const [a, b] = [await subscribe(gw), await subscribe(gw)];
    const marker = `${tempDir('push')}/ran`;
    const w = gw.watch('n1');
    await w.ready;
    const m = await gw.post('n1', `[[bash:echo ran >> ${marker}]] tag:pn1`);
    const [pa, pb] = [
      await waitPush(a, (p) => p.kind === 'permission'),
      await waitPush(b, (p) => p.kind === 'permission'),
    ];
    const payload = pa.json<PushPayload>();
    expect(payload).toMatchObject({ v: 1, conversation: 'n1', requireInteraction: true });
    expect(payload.title).toContain('Bash waits for you');
    expect(payload.body).toContain(`echo ran >> ${marker}`);
    expect(payload.buttons.map((x) => [x.action, x.title])).toEqual([
      ['approve', 'Approve'],
      ['deny', 'Deny'],
      ['stop', 'Stop'],
    ]);
    expect([pa.urgency, pa.ttl, pa.vapid.sub, pa.vapid.aud]).toEqual([
      'high',
      43_200,
      'mailto:owner@example.com',
      push.origin,
    ]);
    expect(pa.vapid.key).toBe(((await (await gw.api('GET', '/api/push')).json()) as { publicKey: string }).publicKey);
    // Nothing secret beyond what it shows: the web token never travels; each device's tokens are its own.
    expect(pa.text).not.toContain(gw.ep.token);
    expect(button(pa, 'approve').token).not.toBe(button(pb, 'approve').token);

    const tampered = button(pa, 'deny').token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await press(gw, tampered)).status).toBe(401);
    expect(gw.gw.services.desk.count()).toBe(1);

    const approved = await press(gw, button(pa, 'approve').token);
    expect(approved).toEqual({ status: 200, body: { ok: true, text: 'Allow: sent to the agent.' } });
    await w.waitReply(m.messageId, 'reply', budget);
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    // One answer: the other device's Approve, and the same button again, find it gone.
    expect((await press(gw, button(pb, 'approve').token)).status).toBe(404);
    expect((await press(gw, button(pa, 'approve').token)).body.error.message).toMatch(/no longer waiting/);
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    // The model got the tool's result once.
    expect(mock.mainRequests().filter((r) => r.afterTool && r.historyText.includes('tag:pn1')).length).toBe(1);
    const step = w.of('step', (d) => (d.step as { kind: string }).kind === 'permission').at(-1)!;
    expect((step.data.step as { answer: { by: string } }).answer.by).toBe('web:owner (notification)');
  });

  it('offers Deny and Stop only for an input too long to show whole, or one that hides characters', async () => {
    const d = await subscribe(gw);
    const dir = tempDir('push');
    const w = gw.watch('n2');
    await w.ready;
    const long = await gw.post('n2', `[[bash:touch ${dir}/long; : ${'x'.repeat(240)}]] tag:pn2`);
    const p1 = await waitPush(d, (p) => p.kind === 'permission' && p.conversation === 'n2');
    expect(p1.json<PushPayload>().buttons.map((x) => x.action)).toEqual(['deny', 'stop']);
    expect(p1.json<PushPayload>().body).toMatch(/characters: open Rudder to read it all and approve/);
    expect((await press(gw, button(p1, 'deny').token)).body.text).toBe('Deny: sent to the agent.');
    await w.waitReply(long.messageId, 'reply', budget);
    expect(fs.existsSync(`${dir}/long`)).toBe(false);

    // Text a person sends is cleaned of such characters; a model's tool input is not (a prompt injection).
    mock.setScript((req) =>
      req.lastText.includes('tag:pn3') && !req.afterTool
        ? { kind: 'tool', name: 'Bash', input: { command: `touch ${dir}/hidden #\u202Etxt.exe` } }
        : undefined,
    );
    const hidden = await gw.post('n2', 'clean up tag:pn3');
    const p2 = await waitPush(d, (p) => p.kind === 'permission' && p.body.includes('hidden'));
    mock.setScript(undefined);
    expect(p2.json<PushPayload>().buttons.map((x) => x.action)).toEqual(['deny', 'stop']);
    expect(p2.json<PushPayload>().body).toContain('⟨U+202E⟩');
    // Stop from the notification ends that turn, as the page's Stop does.
    expect((await press(gw, button(p2, 'stop').token)).body.text).toBe('⏹ Stopping the turn.');
    await waitUntil(() => gw.gw.services.store.message(hidden.messageId)?.state === 'stopped', budget);
    expect(fs.existsSync(`${dir}/hidden`)).toBe(false);
    expect((await press(gw, button(p2, 'stop').token)).body.error.message).toBe('That turn already ended.');
  });

  it('a device that turned notifications off can no longer press its buttons', async () => {
    const d = await subscribe(gw);
    const w = gw.watch('n3');
    await w.ready;
    const m = await gw.post('n3', `[[bash:touch ${tempDir('push')}/x]] tag:pn4`);
    const p = await waitPush(d, (x) => x.kind === 'permission' && x.conversation === 'n3');
    expect((await gw.api('DELETE', `/api/push/subscriptions/${d.sub}`)).status).toBe(200);
    const r = await press(gw, button(p, 'approve').token);
    expect([r.status, r.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(gw.gw.services.desk.pending('web:n3')).toBeDefined();
    await gw.api(
      'POST',
      `/api/conversations/n3/permissions/${gw.gw.services.desk.pending('web:n3')!.request.requestId}`,
      {
        optionId: 'deny',
      },
    );
    await w.waitReply(m.messageId, 'reply', budget);
  });
});

describe('who is looking, and mute (real CLI, relay)', () => {
  it('no push while a page shows the conversation; pushed once it looks away if it still waits', async () => {
    const gw = await gateway({ permissionMode: 'relay' });
    const d = await subscribe(gw);
    expect((await gw.api('POST', '/api/push/presence', { viewer: 'page-0001', conversationId: 'seen' })).status).toBe(
      200,
    );
    const seen = await gw.post('seen', `[[bash:touch ${tempDir('push')}/a]] tag:ps1`);
    // A sentinel in another conversation: once its push is here, the first one would have been too.
    await gw.post('other', `[[bash:touch ${tempDir('push')}/b]] tag:ps2`);
    await waitPush(d, (p) => p.conversation === 'other');
    await waitUntil(() => gw.gw.services.desk.pending('web:seen') !== undefined, budget);
    expect(pushesTo(d).filter((p) => p.json<PushPayload>().conversation === 'seen')).toEqual([]);
    await gw.api('POST', '/api/push/presence', { viewer: 'page-0001', conversationId: null });
    const late = await waitPush(d, (p) => p.conversation === 'seen');
    expect(late.json<PushPayload>().kind).toBe('permission');
    expect(gw.gw.services.store.message(seen.messageId)?.state).toBe('running');
  });

  it('a muted conversation is never pushed; the list says it is muted', async () => {
    const gw = await gateway({ permissionMode: 'relay' });
    const d = await subscribe(gw);
    const created = (await (await gw.api('POST', '/api/conversations', {})).json()) as { id: string };
    const patched = await gw.api('PATCH', `/api/conversations/${created.id}`, { muted: true });
    expect(((await patched.json()) as { muted: boolean }).muted).toBe(true);
    await gw.post(created.id, `[[bash:touch ${tempDir('push')}/m]] tag:pm1`);
    await gw.post('loud', `[[bash:touch ${tempDir('push')}/l]] tag:pm2`);
    await waitPush(d, (p) => p.conversation === 'loud');
    await waitUntil(() => gw.gw.services.desk.pending(`web:${created.id}`) !== undefined, budget);
    expect(pushesTo(d).filter((p) => p.json<PushPayload>().conversation === created.id)).toEqual([]);
    const list = (await (await gw.api('GET', '/api/conversations')).json()) as { conversations: any[] };
    expect(list.conversations.find((c) => c.id === created.id).muted).toBe(true);
    expect(list.conversations.find((c) => c.id === 'loud').muted).toBe(false);
  });
});

describe('turn ends, failures and rate limits pushed (real CLI)', () => {
  it('a turn over push.longTurnSeconds is pushed when it ends, a quicker one is not; a failure is', async () => {
    const gw = await gateway({}, { push: { longTurnSeconds: 4 } });
    const d = await subscribe(gw);
    const w = gw.watch('t1');
    await w.ready;
    const slow = await gw.post('t1', 'slow [[slow:5000]] tag:pt2');
    await w.waitReply(slow.messageId, 'reply', budget);
    const done = await waitPush(d, (p) => p.kind === 'turn-done');
    expect(done.json<PushPayload>().title).toMatch(/done in \d+ s$/);
    expect(done.json<PushPayload>().body).toContain('tag:pt2');
    expect(done.json<PushPayload>().buttons).toEqual([]);
    // The process is warm now: a plain answer takes well under 4 s, and is not pushed.
    const quick = await gw.post('t1', 'quick tag:pt1');
    await w.waitReply(quick.messageId, 'reply', budget);
    const failing = await gw.post('t1', 'break [[500]] tag:pt3');
    await w.waitReply(failing.messageId, 'notice', budget);
    const failed = await waitPush(d, (p) => p.kind === 'failed');
    expect(failed.json<PushPayload>().body.length).toBeGreaterThan(10);
    // Pushed are exactly the answered turns that ran 4 s or more, by the turns' own times (on a loaded machine
    // the quick one can take that long too); the slow one is among them.
    const page = (await (await gw.api('GET', '/api/conversations/t1/turns')).json()) as { turns: TurnView[] };
    const long = page.turns
      .filter((t) => t.status === 'answered' && t.endedAt! - t.startedAt >= 4000)
      .map((t) => `turn:${t.id}`);
    const store = gw.gw.services.store;
    expect(long).toContain(`turn:${store.message(slow.messageId)!.turnId}`);
    expect(pushesTo(d, 'turn-done').map((p) => p.json<PushPayload>().tag)).toEqual(long);
  });

  it("a rate limit's reset is pushed with Stop for the turn that runs the held messages", async () => {
    // 429 until the reset; then the re-run (a note in the same session) asks to run a command.
    let resetsAt = 0;
    const marker = `${tempDir('push')}/r`;
    mock.setScript((req) => {
      if (req.side || !req.historyText.includes('tag:pr1') || req.afterTool) return undefined;
      if (resetsAt && Date.now() >= resetsAt * 1000)
        return { kind: 'tool', name: 'Bash', input: { command: `touch ${marker}` } };
      resetsAt ||= Math.floor(Date.now() / 1000) + 3;
      return { kind: 'error', status: 429, style: 'subscription', resetsAt };
    });
    try {
      const env = mockAgentEnv(mock.url, tempDir('chome'), { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-test' });
      const gw = await gateway({ env, permissionMode: 'relay' });
      const d = await subscribe(gw);
      const w = gw.watch('r1');
      await w.ready;
      const m = await gw.post('r1', 'held tag:pr1');
      await waitUntil(() => gw.gw.services.store.message(m.messageId)?.state === 'deferred', budget);
      const reset = await waitPush(d, (p) => p.kind === 'rate-limit-reset');
      expect(reset.json<PushPayload>().body).toBe('The rate limit is over: your held message runs now.');
      expect(reset.json<PushPayload>().buttons.map((b) => b.action)).toEqual(['stop']);
      await waitPush(d, (p) => p.kind === 'permission' && p.conversation === 'r1');
      expect((await press(gw, button(reset, 'stop').token)).body.text).toBe('⏹ Stopping the turn.');
      await waitUntil(() => gw.gw.services.store.message(m.messageId)?.state === 'stopped', budget);
      expect(fs.existsSync(marker)).toBe(false);
    } finally {
      mock.setScript(undefined);
    }
  });
});

describe('subscriptions', () => {
  it('are removed when the push service answers 404 or 410, and kept otherwise', async () => {
    const gw = await gateway();
    const [gone, missing, fine] = [await subscribe(gw), await subscribe(gw), await subscribe(gw)];
    push.answerWith(gone.id, 410);
    push.answerWith(missing.id, 404);
    const test = await gw.api('POST', '/api/push/test', {});
    expect(await test.json()).toEqual({ devices: 3 });
    await waitPush(fine, (p) => p.kind === 'test');
    await waitUntil(() => gw.gw.services.store.push.count() === 1, budget);
    expect(gw.gw.services.store.push.get(fine.sub)).toBeDefined();
    expect(push.refused.map((r) => [r.device, r.status])).toEqual(
      expect.arrayContaining([
        [gone.id, 410],
        [missing.id, 404],
      ]),
    );
    expect(((await (await gw.api('GET', '/api/push')).json()) as { subscriptions: number }).subscriptions).toBe(1);
  });

  it('are the token holder’s: a clear 400 for what is not a subscription, 401 without the token', async () => {
    const gw = await gateway();
    const device = push.device().subscription;
    const noToken = await fetch(`${gw.ep.base}/api/push/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(device),
    });
    expect(noToken.status).toBe(401);
    const bad = async (body: unknown) => {
      const r = await gw.api('POST', '/api/push/subscriptions', body);
      return [r.status, ((await r.json()) as { error: { message: string } }).error.message];
    };
    expect(await bad({ ...device, endpoint: 'http://127.0.0.1:9/push/x' })).toEqual([
      400,
      expect.stringMatching(/https:/),
    ]);
    expect(await bad({ ...device, keys: { ...device.keys, p256dh: 'AAAA' } })).toEqual([
      400,
      expect.stringMatching(/keys.p256dh.*65 bytes/),
    ]);
    expect(await bad({ ...device, keys: { ...device.keys, auth: undefined } })).toEqual([
      400,
      expect.stringMatching(/keys.auth/),
    ]);
    expect(await bad({ ...device, extra: 1 })).toEqual([400, expect.stringMatching(/Unknown field/)]);
    const presence = await gw.api('POST', '/api/push/presence', { viewer: 'x', conversationId: null });
    expect(presence.status).toBe(400);
    expect((await gw.api('DELETE', '/api/push/subscriptions/nope')).status).toBe(404);
    expect((await press(gw, 'not-a-token')).status).toBe(401);
  });

  it('push.enabled false: no keys, nothing offered, subscribing is a 409 that says why', async () => {
    const gw = await gateway({}, { push: { enabled: false } });
    expect(await (await gw.api('GET', '/api/push')).json()).toMatchObject({ enabled: false, publicKey: null });
    const r = await gw.api('POST', '/api/push/subscriptions', push.device().subscription);
    expect([r.status, ((await r.json()) as { error: { code: string } }).error.code]).toEqual([409, 'PUSH_DISABLED']);
    expect(fs.existsSync(`${gw.home}/push-vapid.json`)).toBe(false);
  });

  it('the VAPID keys are made once, mode 0600, and kept across restarts', async () => {
    const home = tempDir('rhome');
    const first = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) }, { home });
    const key = ((await (await first.api('GET', '/api/push')).json()) as { publicKey: string }).publicKey;
    await first.stop();
    expect(fs.statSync(`${home}/push-vapid.json`).mode & 0o777).toBe(0o600);
    const again = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) }, { home });
    gateways.push(again);
    expect(((await (await again.api('GET', '/api/push')).json()) as { publicKey: string }).publicKey).toBe(key);
  });
});
