/**
 * Notifications: how soon a permission request reaches the person's push service. The real CLI in
 * relay mode asks to run a command; the clock starts when the request opens on the gateway's desk
 * (the step log's permission step appears, before any surface is told) and stops when the fake
 * push service (HTTPS, tests/support/fake-push.ts) receives the push web-push sent, encrypted for
 * the device and signed with the gateway's VAPID key. Each push is decrypted there and checked to
 * be that request's. The request is then denied, and the next one asked.
 */
import { tempDir } from '../tests/support/claude-rig.js';
import { startFakePush } from '../tests/support/fake-push.js';
import { agentConfig, startInProcess } from '../tests/support/gateway-rig.js';
import { startMockApi } from '../tests/support/mock-anthropic.js';
import type { SectionBody } from './report.js';
import { ms, summarize } from './stats.js';

export async function benchPush(quick: boolean): Promise<SectionBody> {
  const rounds = quick ? 5 : 20;
  const mock = await startMockApi();
  const push = await startFakePush();
  const gw = await startInProcess(
    { agent: agentConfig(mock.url, tempDir('bench-chome'), { permissionMode: 'relay', cwd: tempDir('bench-cwd') }) },
    { pushAgent: push.agent },
  );
  const opened = new Map<string, number>();
  const unsubscribe = gw.gw.services.steps.onChange((_turn, changed) => {
    const now = performance.timeOrigin + performance.now();
    for (const s of changed) if (s.kind === 'permission' && !opened.has(s.requestId)) opened.set(s.requestId, now);
  });
  const latencies: number[] = [];
  try {
    const device = push.device();
    const res = await gw.api('POST', '/api/push/subscriptions', device.subscription);
    if (res.status !== 201) throw new Error(`subscribing failed: ${res.status} ${await res.text()}`);
    const w = gw.watch('bench-push');
    await w.ready;
    for (let i = 0; i < rounds; i++) {
      const m = await gw.post('bench-push', `[[bash:touch ${tempDir('bench-push')}/f${i}]] tag:bp${i}`);
      const p = await push.waitFor((x) => x.json().kind === 'permission' && x.json().body.includes(`/f${i}`), 60_000);
      const requestId = String(p.json().tag).replace(/^permission:/, '');
      const start = opened.get(requestId);
      if (start === undefined) throw new Error(`the push names request ${requestId}, which never opened`);
      latencies.push(p.at - start);
      await gw.api('POST', `/api/conversations/bench-push/permissions/${encodeURIComponent(requestId)}`, {
        optionId: 'deny',
      });
      await w.waitReply(m.messageId, 'reply', 60_000);
    }
  } finally {
    unsubscribe();
    await gw.stop();
    await push.close();
    await mock.close();
  }
  const s = summarize(latencies);
  return {
    tables: [
      {
        caption: `A permission request opening on the desk to its push reaching the push service, ${s.n} requests:`,
        head: ['p50', 'p95', 'min', 'max', 'mean'],
        rows: [[ms(s.p50), ms(s.p95), ms(s.min), ms(s.max), ms(s.mean)]],
      },
    ],
    checks: [
      {
        target: 'permission request to its push at the push service (reported)',
        measured: `p50 ${ms(s.p50)}, p95 ${ms(s.p95)}`,
        pass: true,
      },
    ],
    notes: [
      'Real CLI (relay mode) against the mock Messages API, one subscribed device. The interval covers the ' +
        "notifier's decision (presence, mute), composing the notification and signing its buttons' tokens, " +
        "web-push's encryption (ECDH P-256, HKDF, AES-128-GCM) and VAPID JWT (ES256), and the HTTPS request on " +
        "loopback with a kept-alive connection; a real push service's network distance and its own delivery " +
        'to the phone come on top. Both clocks are performance.timeOrigin + now() in the one process.',
    ],
    data: { latencies: s },
  };
}
