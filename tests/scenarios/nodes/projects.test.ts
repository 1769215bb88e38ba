/**
 * Projects across machines, as a person sees them: /project and GET /api/projects name each
 * project's node; /nodes, GET /api/status and `rudder status` show each node, its state, projects
 * and live sessions; /sessions and /resume work on the node that holds the project; `rudder doctor`
 * checks the connection, JetStream, the streams and each node. (The review of a node's project,
 * run on the node: review.test.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import type { MockApi } from '../../support/mock-anthropic.js';
import { answerOf, type Cluster, conversationIn, useCluster } from '../../support/nodes-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockApi;
let cl: Cluster;

useCluster(
  [
    { name: 'alpha', projects: ['web'] },
    { name: 'beta', projects: ['api'] },
  ],
  (s) => void ({ mock, cl } = s),
);

const command = (c: string, text: string) => answerOf(cl, c, text);

describe('projects across machines', { timeout: 180_000 }, () => {
  it('/project, /nodes, GET /api/projects, GET /api/status and rudder status name the nodes', async () => {
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const m = await cl.front.post(c, 'hello tag:cmd1');
    await w.waitReply(m.messageId, 'reply', cl.budget());

    expect(await command(c, '/project')).toMatch(/→ web — on node alpha \(default\)\n\s+api — on node beta/);
    const projects = (await (await cl.front.api('GET', '/api/projects')).json()) as {
      projects: Array<{ name: string; node?: string }>;
    };
    expect(projects.projects.map((p) => [p.name, p.node])).toEqual([
      ['web', 'alpha'],
      ['api', 'beta'],
    ]);

    const nodes = await command(c, '/nodes');
    expect(nodes).toMatch(
      /• alpha: 🟢 up, Rudder \S+\n\s+projects: web\n\s+sessions: web:\S+ \(web, (idle|busy), pid \d+\)/,
    );
    expect(nodes).toMatch(/• beta: 🟢 up/);

    const status = (await (await cl.front.api('GET', '/api/status')).json()) as {
      nodes: Array<{ name: string; state: string; projects: string[]; pinned: string[]; sessions: unknown[] }>;
    };
    expect(status.nodes.map((n) => [n.name, n.state, n.projects, n.pinned])).toEqual([
      ['alpha', 'up', ['web'], ['web']],
      ['beta', 'up', ['api'], ['api']],
    ]);
    expect(status.nodes[0]!.sessions).toHaveLength(1);

    const cli = await runCli(['status'], {
      env: cleanEnv({ RUDDER_URL: cl.front.ep.base, RUDDER_TOKEN: cl.front.ep.token }),
    });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toMatch(/Nodes:\n\s+alpha\s+up\s+projects web\s+sessions 1/);
  });

  it('/sessions lists the sessions on the node that holds the project, and /resume continues one there', async () => {
    const c1 = await conversationIn(cl.front, 'api');
    const w1 = cl.front.watch(c1);
    await w1.ready;
    const m1 = await cl.front.post(c1, 'remember tag:res1');
    await w1.waitReply(m1.messageId, 'reply', cl.budget());
    const c2 = await conversationIn(cl.front, 'api');
    const listed = await command(c2, '/sessions');
    expect(listed).toMatch(/^Running now: no Claude Code in api on node beta \(tmux servers looked in: default\)\.$/m);
    expect(listed).toMatch(/^Claude Code sessions in api \(on node beta\), most recent first:\n1\. /m);
    expect(listed).toContain('remember tag:res1');
    const id = /· ([0-9a-f-]{36})/.exec(listed)![1]!;
    // The warm process on beta has it open: said, with the way out.
    expect(await command(c2, '/resume 1')).toMatch(/is open on node beta, pid \d+\..*\/resume 1 --force/);
    expect(await command(c2, '/resume 1 --force')).toContain(`This conversation continues session ${id} in api`);
    const w2 = cl.front.watch(c2);
    await w2.ready;
    const m2 = await cl.front.post(c2, 'what did I say tag:res2');
    await w2.waitReply(m2.messageId, 'reply', cl.budget());
    const req = mock.mainRequests().find((r) => r.lastText.includes('tag:res2'))!;
    expect(req.historyText).toContain('tag:res1');
  });

  it('rudder doctor checks the connection, JetStream, the streams and each node', async () => {
    const r = await runCli(['doctor', '--timeout', '60'], {
      cwd: cl.frontCwd,
      env: cleanEnv({ RUDDER_HOME: cl.frontHome }),
      timeoutMs: 120_000,
    });
    expect(r.stdout).toMatch(/✔ nats-server: nats-server: v2\.\d+\.\d+/);
    expect(r.stdout).toContain(`✔ NATS connection: nats://127.0.0.1:${cl.front.natsPort}`);
    expect(r.stdout).toMatch(/✔ JetStream: \d+ streams/);
    expect(r.stdout).toMatch(/✔ stream RUDDER_CMD/);
    expect(r.stdout).toMatch(/✔ stream RUDDER_EVT/);
    expect(r.stdout).toMatch(/✔ front consumer: ack explicit/);
    expect(r.stdout).toMatch(/✔ node alpha: up: last heartbeat \d+s ago, Rudder \S+, projects web/);
    expect(r.stdout).toMatch(/✔ node beta: up/);
  });

  it('rudder doctor on a node checks that its key connects and reads its commands', async () => {
    const node = cl.nodes.alpha!;
    const r = await runCli(['doctor', '--timeout', '60'], {
      cwd: node.cwd,
      env: cleanEnv({ RUDDER_HOME: node.home, RUDDER_NODE_TOKEN: node.token }),
      timeoutMs: 120_000,
    });
    expect(r.stdout).toContain(`✔ this node (alpha): its key connects to nats://127.0.0.1:${cl.front.natsPort}`);
  });

  it('rudder node join keeps a token read from stdin (0600) and refuses one that is not a token', async () => {
    const home = tempDir('join-home');
    const ok = await runCli(['node', 'join'], {
      env: cleanEnv({ RUDDER_HOME: home }),
      input: `${cl.nodes.beta!.token}\n`,
    });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/This machine joins as node beta at nats:\/\/127\.0\.0\.1:\d+/);
    const file = path.join(home, 'node-join.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).name).toBe('beta');
    const bad = await runCli(['node', 'join'], {
      env: cleanEnv({ RUDDER_HOME: tempDir('join-bad') }),
      input: 'hello\n',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/The join token is not valid\. .*It must start with rudder-join-1\./);
  });
});
