/**
 * Where the gateway's pushes may go, end to end (the gateway in process, the real web-push library,
 * the fake push service on 127.0.0.1): an endpoint that is an address, this machine's name or a
 * metadata name is refused when a page subscribes it, and a name that resolves to an address that is
 * not public is accepted but never connected to when a push is sent. A device that unsubscribed and
 * subscribes the same endpoint again gets new buttons: the old ones stay revoked (real CLI, relay).
 */
import dns from 'node:dns/promises';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../../src/channels/push/endpoint.js';
import type { PushPayload } from '../../../src/http/wire.js';
import { createLogger } from '../../../src/ops/logger.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakePushService, startFakePush } from '../../support/fake-push.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

type Gateway = Awaited<ReturnType<typeof startInProcess>>;
let mock: MockApi;
let push: FakePushService;
const gateways: Gateway[] = [];

beforeAll(async () => {
  mock = await startMockApi();
  push = await startFakePush();
});
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await push?.close();
  await mock?.close();
});

async function gateway(o: { agent?: Record<string, unknown>; trustFake?: boolean; logDir?: string } = {}) {
  const gw = await startInProcess(
    { agent: agentConfig(mock.url, tempDir('chome'), o.agent ?? {}) },
    {
      ...(o.trustFake === false ? {} : { pushAgent: push.agent }),
      ...(o.logDir ? { logger: createLogger({ dataDir: o.logDir, level: 'debug', pretty: false }) } : {}),
    },
  );
  gateways.push(gw);
  return gw;
}

const subscribeTo = (gw: Gateway, endpoint: string) =>
  gw.api('POST', '/api/push/subscriptions', { ...push.device().subscription, endpoint });

/** A button's press as the service worker makes it: the token alone, no Authorization header. */
async function press(gw: Gateway, token: string): Promise<number> {
  const res = await fetch(`${gw.ep.base}/api/push/action`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  return res.status;
}

describe('push endpoints', () => {
  it('refuses an endpoint that is an address, this machine or a metadata service; nothing connects there', async () => {
    const gw = await gateway();
    const id = push.device().id;
    const port = push.port;
    const refused = [
      `https://127.0.0.1:${port}/push/${id}`,
      `https://[::1]:${port}/push/${id}`,
      `https://[::ffff:127.0.0.1]:${port}/push/${id}`,
      `https://2130706433:${port}/push/${id}`,
      `https://0x7f.1:${port}/push/${id}`,
      'https://10.1.2.3/push/x',
      'https://192.168.1.1/push/x',
      'https://169.254.169.254/latest/meta-data/',
      `https://localhost:${port}/push/${id}`,
      `https://rudder.localhost:${port}/push/${id}`,
      'https://metadata.google.internal/computeMetadata/v1/',
    ];
    for (const endpoint of refused) {
      const r = await subscribeTo(gw, endpoint);
      expect([endpoint, r.status]).toEqual([endpoint, 400]);
      expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/endpoint" is refused/);
    }
    const before = push.connections();
    const test = (await (await gw.api('POST', '/api/push/test', {})).json()) as { devices: number };
    expect(test.devices).toBe(0);
    // A push service's own name is taken.
    expect((await gw.api('POST', '/api/push/subscriptions', push.device().subscription)).status).toBe(201);
    await gw.api('POST', '/api/push/test', {});
    await waitUntil(() => push.received.length > 0, 30_000);
    expect(push.connections()).toBe(before + 1);
  });

  it('never connects to a name that resolves to an address that is not public', async () => {
    // This machine's own name resolves to it (loopback, or a private address in a container).
    const name = os.hostname();
    const addresses = await dns.lookup(name, { all: true });
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.some((a) => !isPublicAddress(a.address))).toBe(true);
    const logDir = tempDir('push-log');
    const gw = await gateway({ trustFake: false, logDir });
    const r = await subscribeTo(gw, `https://${name}:${push.port}/push/${push.device().id}`);
    expect(r.status).toBe(201);
    const before = push.connections();
    expect(((await (await gw.api('POST', '/api/push/test', {})).json()) as { devices: number }).devices).toBe(1);
    const file = path.join(logDir, 'rudder.log');
    const log = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
    await waitUntil(() => log().includes('PUSH_SEND_FAILED'), 30_000);
    expect(log()).toMatch(/not a public address/);
    expect(push.connections()).toBe(before);
  });

  it('re-subscribing the same endpoint does not revive the buttons its unsubscribe revoked', async () => {
    const gw = await gateway({ agent: { permissionMode: 'relay' } });
    const device = push.device();
    const first = await gw.api('POST', '/api/push/subscriptions', device.subscription);
    const sub = ((await first.json()) as { id: string }).id;
    const w = gw.watch('r1');
    await w.ready;
    const marker = path.join(tempDir('push'), 'ran');
    await gw.post('r1', `[[bash:echo revoked > ${marker}]] tag:rs1`);
    const p = await push.waitFor((x) => x.device === device.id && x.json<PushPayload>().kind === 'permission', 90_000);
    const deny = p.json<PushPayload>().buttons.find((b) => b.action === 'deny')!.token;
    expect((await gw.api('DELETE', `/api/push/subscriptions/${sub}`)).status).toBe(200);
    expect(await press(gw, deny)).toBe(401);
    // The same browser turns notifications on again: same endpoint, new subscription.
    const again = await gw.api('POST', '/api/push/subscriptions', device.subscription);
    expect(again.status).toBe(201);
    const renewed = ((await again.json()) as { id: string }).id;
    expect(renewed).not.toBe(sub);
    expect(await press(gw, deny)).toBe(401);
    expect(gw.gw.services.desk.count()).toBe(1);
    // Sending the same subscription again (the page does at each start) keeps it.
    const resent = await gw.api('POST', '/api/push/subscriptions', device.subscription);
    expect(((await resent.json()) as { id: string }).id).toBe(renewed);
    // The request still waits for an answer from the page; the turn is stopped so nothing runs after.
    expect(fs.existsSync(marker)).toBe(false);
    expect((await gw.api('POST', '/api/conversations/r1/stop', {})).ok).toBe(true);
  });
});
