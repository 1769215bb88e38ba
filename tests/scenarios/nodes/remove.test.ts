/**
 * `rudder node remove <name>` while the node runs (real front, embedded nats-server, real node and agent): the
 * running node is told, and stops with the message a fresh start of it is refused with; the front drops it from
 * its list (GET /api/status, /nodes) instead of showing it lost with its old sessions.
 */
import { describe, expect, it } from 'vitest';
import { waitUntil } from '../../support/claude-rig.js';
import type { MockApi } from '../../support/mock-anthropic.js';
import { answerOf, type Cluster, conversationIn, NodeProc, useCluster } from '../../support/nodes-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockApi;
let cl: Cluster;

useCluster([{ name: 'alpha', projects: ['web'] }], (s) => void ({ mock, cl } = s));

interface Listed {
  name: string;
  state: string;
  added: boolean;
  lastSeen: string | null;
  sessions: unknown[];
}
const listed = async () =>
  (((await (await cl.front.api('GET', '/api/status')).json()) as { nodes?: Listed[] }).nodes ?? []).map((n) => n.name);
const alphaStatus = async () =>
  (((await (await cl.front.api('GET', '/api/status')).json()) as { nodes?: Listed[] }).nodes ?? []).find(
    (n) => n.name === 'alpha',
  );

const command = (c: string, text: string) => answerOf(cl, c, text);

describe('a node removed while it runs', { timeout: 180_000 }, () => {
  it('stops with the message a fresh start gets, and leaves the front’s list', async () => {
    const alpha = cl.nodes.alpha!;
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const m = await cl.front.post(c, 'hello tag:rm1');
    await w.waitReply(m.messageId, 'reply', cl.budget());
    expect(await listed()).toContain('alpha');

    const removed = await runCli(['node', 'remove', 'alpha'], {
      cwd: cl.frontCwd,
      env: cleanEnv({ RUDDER_HOME: cl.frontHome }),
    });
    expect(removed.status).toBe(0);
    await waitUntil(() => !alpha.running(), cl.budget());
    expect(alpha.child!.exitCode).toBe(1);
    const stopped = alpha.out.trim().split('\n').at(-1)!;

    const fresh = new NodeProc(alpha.spec, mock.url, alpha.token, () => cl.budget());
    await expect(fresh.start()).rejects.toThrow(/did not start/);
    await fresh.exited();
    const refused = fresh.out.trim().split('\n').at(-1)!;
    expect(refused).toMatch(/^rudder node: .*Authorization Violation/);
    expect(stopped).toBe(refused);

    // Its project is still pinned to it: listed as a name with no key, never as lost with its old sessions.
    await waitUntil(async () => (await alphaStatus())?.added === false, cl.budget());
    expect(await alphaStatus()).toMatchObject({ state: 'unknown', added: false, lastSeen: null, sessions: [] });
    expect(await command(c, '/nodes')).toMatch(/• alpha: ⚪ not added \(rudder node add alpha\)/);
  });
});
