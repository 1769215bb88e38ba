/**
 * The plaintext rule on a node's way to its front, end to end on the built CLI: `rudder node add --url`, `rudder
 * node join` on the token and `rudder node` at start each refuse a plain nats:// URL to an address the rule does
 * not call loopback (unless the front says plain text is meant); and with an existing server named nats:// plus
 * `tls` on the front, the token carries a tls:// URL and the CA, and the node, with no server in its own config,
 * connects over TLS (the server's own view of the connection says so) and runs a turn.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJoinToken, encodeJoinToken, newUser } from '../../../src/nodes/credentials.js';
import { resolveNatsServer } from '../../../src/nodes/transport/embedded.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startChild, writeConfig } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { conversationIn, freePort, NODE_TIMING, NodeProc, upNodes } from '../../support/nodes-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';
import { testCertificates } from '../../support/test-ca.js';

let mock: MockApi;
let server: ChildProcess | undefined;
let front: Awaited<ReturnType<typeof startChild>> | undefined;
let node: NodeProc | undefined;

beforeAll(async () => {
  mock = await startMockApi();
}, 120_000);

/** The operator's nats-server, stopped last of what the test started (the front and node before it). */
async function stopServer(): Promise<void> {
  const s = server;
  if (!s || s.exitCode !== null) return;
  const exited = new Promise((r) => s.once('exit', r));
  s.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  await node?.stop();
  await front?.stop();
  await stopServer();
  await mock?.close();
});

/** A front's data dir and config (the embedded server, not started). */
function frontDir(config: Record<string, unknown>): {
  home: string;
  cwd: string;
  env: Record<string, string | undefined>;
} {
  const home = tempDir('url-front-home');
  const cwd = tempDir('url-front-cwd');
  writeConfig(cwd, config);
  return { home, cwd, env: cleanEnv({ RUDDER_HOME: home }) };
}

const addedNodes = (home: string) =>
  Object.keys((JSON.parse(fs.readFileSync(path.join(home, 'nats', 'nodes.json'), 'utf8')).nodes ?? {}) as object);

/** A token as an older front made it: no check on its URL. */
const plainToken = (url: string) => encodeJoinToken({ name: 'n3', url, seed: newUser().seed });

describe('a node never talks to its front in clear', { timeout: 180_000 }, () => {
  it('refuses a plain URL off loopback in `node add --url` unless it is meant', async () => {
    const port = await freePort();
    const f = frontDir({ nodes: { embeddedPort: port } });
    const tunnel = await runCli(['node', 'add', 'n1', '--url', `nats://127.0.0.1:${port}`], { cwd: f.cwd, env: f.env });
    expect(tunnel.status).toBe(0);
    // An IPv4 address written as IPv6: the URL parser makes it ::ffff:7f00:1, which the rule does not call loopback.
    const mapped = `nats://[::ffff:127.0.0.1]:${port}`;
    const refused = await runCli(['node', 'add', 'n3', '--url', mapped], { cwd: f.cwd, env: f.env });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/rudder node add: A node would reach NATS in plain text/);
    expect(refused.stderr).toMatch(/\[::ffff:7f00:1\] is not a loopback address/);
    expect(refused.stdout).toBe('');
    const lan = await runCli(['node', 'add', 'n4', '--url', 'nats://192.0.2.10:4222'], { cwd: f.cwd, env: f.env });
    expect(lan.status).toBe(2);
    expect(addedNodes(f.home)).toEqual(['n1']);
    // Said out loud (a WireGuard address): the token carries that it is meant, and join takes it.
    const meant = await runCli(['node', 'add', 'n4', '--url', 'nats://192.0.2.10:4222', '--allow-plaintext'], {
      cwd: f.cwd,
      env: f.env,
    });
    expect(meant.status).toBe(0);
    expect(decodeJoinToken(meant.stdout.trim())).toMatchObject({ url: 'nats://192.0.2.10:4222', allowPlaintext: true });
    const joined = await runCli(['node', 'join'], {
      env: cleanEnv({ RUDDER_HOME: tempDir('url-node-home') }),
      input: meant.stdout,
    });
    expect(joined.status).toBe(0);
  });

  it('refuses such a token at join, and at the start of a node that has one', async () => {
    const token = plainToken('nats://[::ffff:127.0.0.1]:4222');
    const home = tempDir('url-node-home');
    const joined = await runCli(['node', 'join'], { env: cleanEnv({ RUDDER_HOME: home }), input: `${token}\n` });
    expect(joined.status).toBe(2);
    expect(joined.stderr).toMatch(/rudder node join: A node would reach NATS in plain text/);
    expect(fs.existsSync(path.join(home, 'node-join.json'))).toBe(false);

    const cwd = tempDir('url-node-cwd');
    writeConfig(cwd, { agent: agentConfig(mock.url, tempDir('url-chome')), projects: {}, nodes: NODE_TIMING });
    const fromEnv = await runCli(['node'], { cwd, env: cleanEnv({ RUDDER_HOME: home, RUDDER_NODE_TOKEN: token }) });
    expect(fromEnv.status).toBe(2);
    expect(fromEnv.stderr).toMatch(/is not a loopback address/);
    // Saved by an older version's join: refused at start all the same.
    const saved = tempDir('url-node-home');
    fs.writeFileSync(path.join(saved, 'node-join.json'), JSON.stringify(decodeJoinTokenUnchecked(token)), {
      mode: 0o600,
    });
    const started = await runCli(['node'], { cwd, env: cleanEnv({ RUDDER_HOME: saved }) });
    expect(started.status).toBe(2);
    expect(started.stderr).toMatch(/rudder node: A node would reach NATS in plain text/);
    expect(started.stdout).not.toMatch(/is running/);
  });

  it('with nats:// and tls on the front, the token carries tls:// and the CA, and the node uses TLS', async () => {
    const dir = tempDir('url-tls');
    const tls = testCertificates(dir);
    const port = await freePort();
    const monitor = await freePort();
    const config = {
      agent: agentConfig(mock.url, tempDir('url-tls-chome')),
      projects: { web: { node: 'alpha' } },
      nodes: { nats: { url: `nats://127.0.0.1:${port}`, tls: { ca: tls.ca } }, ...NODE_TIMING },
    };
    const f = frontDir(config);
    const added = await runCli(['node', 'add', 'alpha'], { cwd: f.cwd, env: f.env });
    expect(added.status).toBe(0);
    expect(added.stderr).toContain(`It connects to tls://127.0.0.1:${port} over TLS (the token carries the CA`);
    const token = decodeJoinToken(added.stdout.trim());
    expect(token.url).toBe(`tls://127.0.0.1:${port}`);
    expect(token.ca).toBe(fs.readFileSync(tls.ca, 'utf8'));
    expect(token.ca).not.toMatch(/PRIVATE KEY/);

    const block = /accounts \{[\s\S]*\n\}/.exec(added.stderr)?.[0];
    const conf = path.join(dir, 'nats.conf');
    fs.writeFileSync(
      conf,
      `jetstream { store_dir: ${JSON.stringify(path.join(dir, 'js'))} }\n` +
        `tls { cert_file: ${JSON.stringify(tls.cert)}, key_file: ${JSON.stringify(tls.key)} }\n${block}\n`,
    );
    const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-m', String(monitor), '-c', conf];
    server = spawn(resolveNatsServer(undefined), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    server.stdout!.on('data', (d) => (out += d));
    server.stderr!.on('data', (d) => (out += d));
    await waitUntil(() => /Server is ready/.test(out), 20_000);

    front = await startChild(config, { home: f.home, cwd: f.cwd });
    const withPort = Object.assign(front, { natsPort: port });
    // The node's own config names no server: the token's URL and CA are all it has.
    node = new NodeProc({ name: 'alpha', projects: ['web'] }, mock.url, added.stdout.trim(), () => 60_000);
    await node.start();
    expect(node.out).toContain(`NATS tls://127.0.0.1:${port}`);
    await waitUntil(async () => (await upNodes(withPort)).includes('alpha'), 60_000);
    const connz = (await (await fetch(`http://127.0.0.1:${monitor}/connz`)).json()) as {
      connections: Array<{ name?: string; tls_version?: string }>;
    };
    const alpha = connz.connections.find((c) => c.name === 'rudder-alpha');
    expect(alpha?.tls_version).toMatch(/^1\.[23]$/);
    const c = await conversationIn(withPort, 'web');
    const w = front.watch(c);
    await w.ready;
    const m = await front.post(c, 'over TLS from the token tag:tls2');
    expect((await w.waitReply(m.messageId, 'reply', 60_000)).data.text).toBe('ok tag:tls2');
  });
});

/** The token's fields as `node join` saved them before the rule. */
function decodeJoinTokenUnchecked(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.slice('rudder-join-1.'.length), 'base64url').toString('utf8'));
}
