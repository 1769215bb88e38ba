/**
 * An existing nats-server with TLS (`nodes.nats.url` tls://, a CA of its own), as an operator runs
 * it: `rudder node add` prints the `accounts` block the server's config needs (public keys only),
 * the front and the node connect over TLS with the CA, and a turn runs on the node.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveNatsServer } from '../../../src/nodes/transport/embedded.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startChild } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { conversationIn, freePort, NODE_TIMING, NodeProc, upNodes } from '../../support/nodes-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockApi;
let server: ChildProcess | undefined;
let front: Awaited<ReturnType<typeof startChild>> | undefined;
let node: NodeProc | undefined;
const dir = tempDir('tls');

/** A CA, and a certificate for 127.0.0.1 signed by it. */
function certificates(): { ca: string; cert: string; key: string } {
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=rudder-test-ca',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  );
  ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
  );
  fs.writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    f('san.ext'),
    '-out',
    f('server.pem'),
  );
  return { ca: f('ca.pem'), cert: f('server.pem'), key: f('server.key') };
}

beforeAll(async () => {
  mock = await startMockApi();
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await front?.stop();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
  }
  await mock?.close();
});

describe('an existing nats-server with TLS', { timeout: 180_000 }, () => {
  it('front and node connect over TLS with the accounts block rudder node add printed, and a turn runs', async () => {
    const tls = certificates();
    const port = await freePort();
    const url = `tls://127.0.0.1:${port}`;
    const frontHome = tempDir('tls-front-home');
    const frontCwd = tempDir('tls-front-cwd');
    const config = {
      agent: agentConfig(mock.url, tempDir('tls-chome')),
      projects: { web: { node: 'alpha' } },
      nodes: { nats: { url, tls: { ca: tls.ca } }, ...NODE_TIMING },
    };
    fs.writeFileSync(path.join(frontCwd, 'rudder.config.json'), JSON.stringify(config));
    const added = await runCli(['node', 'add', 'alpha'], { cwd: frontCwd, env: cleanEnv({ RUDDER_HOME: frontHome }) });
    expect(added.status).toBe(0);
    const block = /accounts \{[\s\S]*\n\}/.exec(added.stderr)?.[0];
    expect(block).toBeDefined();
    // The operator's server: its own store, its certificate, and the block (public keys and permissions only).
    const conf = path.join(dir, 'nats.conf');
    fs.writeFileSync(
      conf,
      `jetstream { store_dir: ${JSON.stringify(path.join(dir, 'js'))} }\n` +
        `tls { cert_file: ${JSON.stringify(tls.cert)}, key_file: ${JSON.stringify(tls.key)} }\n${block}\n`,
    );
    const bin = resolveNatsServer(undefined);
    server = spawn(bin, ['-js', '-a', '127.0.0.1', '-p', String(port), '-c', conf], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    server.stdout!.on('data', (d) => (out += d));
    server.stderr!.on('data', (d) => (out += d));
    await waitUntil(() => /Server is ready/.test(out), 20_000);

    front = await startChild(config, { home: frontHome, cwd: frontCwd });
    node = new NodeProc(
      { name: 'alpha', projects: ['web'], nats: { url, tls: { ca: tls.ca } } },
      mock.url,
      added.stdout.trim(),
      () => 60_000,
    );
    await node.start();
    await waitUntil(async () => (await upNodes(Object.assign(front!, { natsPort: port }))).includes('alpha'), 60_000);
    const c = await conversationIn(Object.assign(front, { natsPort: port }), 'web');
    const w = front.watch(c);
    await w.ready;
    const m = await front.post(c, 'over TLS tag:tls1');
    expect((await w.waitReply(m.messageId, 'reply', 60_000)).data.text).toBe('ok tag:tls1');
    expect(node.out).toContain(`NATS ${url}`);
  });
});
