/**
 * Who may do what between a front and its nodes: a node with credentials the front did not issue
 * is refused; a node can publish only its own events and read only its own commands (the server's
 * permissions), and an event about a conversation pinned to another node is refused and logged by
 * the front; a node runs nothing outside its configured projects; plain NATS off loopback is refused
 * without the explicit flag; the key stays out of argv, logs and the server's config.
 */
import fs from 'node:fs';
import path from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { connect, nkeyAuthenticator, nkeys } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { decodeJoinToken, encodeJoinToken } from '../../../src/nodes/credentials.js';
import { encode, eventSubject, inboxPrefix } from '../../../src/nodes/wire.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { writeConfig } from '../../support/gateway-rig.js';
import type { MockApi } from '../../support/mock-anthropic.js';
import { type Cluster, conversationIn, frontLog, NodeProc, upNodes, useCluster } from '../../support/nodes-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockApi;
let cl: Cluster;

useCluster(
  [
    { name: 'alpha', projects: ['web'] },
    { name: 'beta', projects: ['api'] },
  ],
  (s) => void ({ mock, cl } = s), // A project pinned to alpha that alpha does not have.
  { front: { projects: { web: { node: 'alpha' }, api: { node: 'beta' }, ghost: { node: 'alpha' } } } },
);

describe('nodes and their rights', { timeout: 180_000 }, () => {
  it('a node with credentials the front did not issue is refused', async () => {
    const real = decodeJoinToken(cl.nodes.alpha!.token);
    const forged = encodeJoinToken({
      ...real,
      name: 'intruder',
      seed: new TextDecoder().decode(nkeys.createUser().getSeed()),
    });
    const intruder = new NodeProc({ name: 'intruder', projects: ['x'] }, mock.url, forged, () => cl.budget());
    await expect(intruder.start()).rejects.toThrow(/Authorization Violation/);
    await intruder.exited();
    expect(intruder.child!.exitCode).toBe(1);
    expect(await upNodes(cl.front)).not.toContain('intruder');
  });

  it("refuses and logs an event about another node's conversation; a node cannot publish as another", async () => {
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const m = await cl.front.post(c, 'hello tag:sec1');
    await w.waitReply(m.messageId, 'reply', cl.budget());
    const beta = decodeJoinToken(cl.nodes.beta!.token);
    const nc = await connect({
      servers: beta.url,
      inboxPrefix: inboxPrefix('beta'),
      authenticator: nkeyAuthenticator(new TextEncoder().encode(beta.seed)),
    });
    try {
      const js = jetstream(nc);
      const forged = {
        type: 'end' as const,
        conversationId: `web:${c}`,
        turnId: 'forged-turn',
        sessionId: null,
        error: { code: 'AGENT_CRASHED', message: 'forged', context: { unanswered: [m.messageId] } },
      };
      // On its own subject the server takes it; the front refuses it: the conversation is alpha's.
      await js.publish(eventSubject('beta'), encode(forged), { msgID: 'forged-1' });
      // On alpha's subject the server refuses it outright.
      await expect(
        js.publish(eventSubject('alpha'), encode(forged), { msgID: 'forged-2', timeout: 3000 }),
      ).rejects.toThrow(/Permissions Violation/);
      // Reading alpha's commands is refused too.
      await expect(js.consumers.get('RUDDER_CMD', 'node-alpha').then((x) => x.info())).rejects.toThrow();
    } finally {
      await nc.close();
    }
    await waitUntil(() => frontLog(cl.frontHome).includes('"code":"NODE_REFUSED"'), cl.budget());
    const refused = frontLog(cl.frontHome)
      .split('\n')
      .filter((l) => l.includes('"code":"NODE_REFUSED"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(refused.at(-1)).toMatchObject({ node: 'beta', conversationId: `web:${c}`, pinnedTo: 'alpha', type: 'end' });
    // The conversation goes on, untouched by it.
    const next = await cl.front.post(c, 'still fine tag:sec2');
    expect((await w.waitReply(next.messageId, 'reply', cl.budget())).data.text).toBe('ok tag:sec2');
    expect(w.of('reply', (d) => String(d.text).includes('forged'))).toHaveLength(0);
  });

  it('a node runs nothing outside its configured projects, whatever the front sends', async () => {
    const c = await conversationIn(cl.front, 'ghost');
    const w = cl.front.watch(c);
    await w.ready;
    const before = mock.mainRequests().length;
    const m = await cl.front.post(c, 'run me tag:ghost1');
    const notice = await w.waitReply(m.messageId, 'notice', cl.budget());
    expect(notice.data.text).toMatch(/Node alpha has no project "ghost" \(its projects: web\)/);
    expect(
      mock
        .mainRequests()
        .slice(before)
        .filter((r) => r.lastText.includes('tag:ghost1')),
    ).toHaveLength(0);
    expect(cl.nodes.alpha!.log()).toContain('refused a turn for another project');
  });

  it("keeps the node's key out of argv, the logs and the server's config", async () => {
    const { seed } = decodeJoinToken(cl.nodes.alpha!.token);
    const pid = cl.nodes.alpha!.child!.pid!;
    expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(seed);
    expect(cl.nodes.alpha!.log()).not.toContain(seed);
    expect(frontLog(cl.frontHome)).not.toContain(seed);
    const conf = fs.readFileSync(path.join(cl.frontHome, 'nats', 'nats.conf'), 'utf8');
    expect(conf).not.toContain(seed);
    expect(conf).toContain(nkeys.fromSeed(new TextEncoder().encode(seed)).getPublicKey());
    expect(fs.statSync(path.join(cl.frontHome, 'nats', 'nats.conf')).mode & 0o077).toBe(0);
    expect(fs.statSync(path.join(cl.nodes.alpha!.home, 'node-join.json'), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('refuses plain NATS to a non-loopback address unless allowPlaintext says so', async () => {
    const cwd = tempDir('plain-cwd');
    const home = tempDir('plain-home');
    writeConfig(cwd, { nodes: { nats: { url: 'nats://192.0.2.10:4222' } } });
    const r = await runCli(['node'], {
      cwd,
      env: cleanEnv({ RUDDER_HOME: home, RUDDER_NODE_TOKEN: cl.nodes.alpha!.token }),
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/nodes\.nats\.allowPlaintext: 192\.0\.2\.10 is not a loopback address/);
    const start = await runCli(['start'], { cwd, env: cleanEnv({ RUDDER_HOME: tempDir('plain-home2') }) });
    expect(start.status).toBe(2);
    expect(start.stderr).toMatch(/allowPlaintext/);
  });
});
