/**
 * Projects on the codex backend through a real gateway: two projects' conversations on one shared
 * app-server at once, each thread in its own project's directory with its own permission mode, and
 * a third project on Claude in the same gateway (the backend is a project's setting). The real
 * codex binary and the real Claude CLI against their mock APIs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAgentEnv, tempDir, waitUntil } from '../../support/claude-rig.js';
import { codexAgent, roundTripBudget, sentTimes } from '../../support/codex-gateway.js';
import { startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { type MockResponses, startMockResponses } from '../../support/mock-responses.js';

let mock: MockResponses;
let claudeMock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 60_000;
const dirs = { alpha: tempDir('proj-alpha'), beta: tempDir('proj-beta'), gamma: tempDir('proj-gamma') };

beforeAll(async () => {
  mock = await startMockResponses();
  claudeMock = await startMockApi();
  const agent = codexAgent(mock.url);
  const home = agent.env.HOME;
  gw = await startInProcess({
    agent: { ...agent, env: { ...mockAgentEnv(claudeMock.url, home), ...agent.env } },
    projects: {
      alpha: { path: dirs.alpha, permissionMode: 'bypassPermissions' },
      beta: { path: dirs.beta, permissionMode: 'relay' },
      gamma: { path: dirs.gamma, backend: 'claude-stream' },
    },
  });
  budget = await roundTripBudget(gw, 'budget');
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  await claudeMock?.close();
});

const CWD = /<cwd>([^<]+)<\/cwd>/;

describe('codex projects (real codex)', () => {
  it('two projects on one app-server at once: each command runs in its project, each thread its policy', async () => {
    const convs = ['pa', 'pb'] as const;
    const names = ['alpha', 'beta'] as const;
    const ws = convs.map((c) => gw.watch(c));
    await Promise.all(ws.map((w) => w.ready));
    for (const [i, c] of convs.entries()) {
      const p = await gw.post(c, `/project ${names[i]}`);
      await ws[i]!.waitReply(p.messageId, undefined, budget);
    }
    // Both commands run at the same time: each writes where it ran, then waits for the other to have started.
    const sent = await Promise.all(
      convs.map((c, i) => {
        const other = path.join(dirs[names[1 - i]!], 'started');
        return gw.post(c, `[[exec:pwd > started; until test -f ${other}; do sleep 0.1; done; pwd > where]] tag:${c}1`);
      }),
    );
    const replies = await Promise.all(sent.map((m, i) => ws[i]!.waitReply(m.messageId, 'reply', budget)));
    for (const [i, name] of names.entries()) {
      expect(replies[i]!.data.text).toBe('done ok');
      expect(fs.readFileSync(path.join(dirs[name], 'where'), 'utf8').trim()).toBe(fs.realpathSync(dirs[name]));
      expect(sentTimes(mock.requests, `tag:${convs[i]}1`)).toBe(1);
    }
    // One app-server hosts both threads; each thread carries its project's directory and permission mode.
    const status = (await (await gw.api('GET', '/api/status')).json()) as any;
    const sessions = convs.map((c) =>
      status.sessions.find((s: { conversationId: string }) => s.conversationId === `web:${c}`),
    );
    expect(sessions.map((s) => s.project)).toEqual([...names]);
    expect(sessions[0].pid).toBe(sessions[1].pid);
    expect(sessions[0].sessionId).not.toBe(sessions[1].sessionId);
    for (const [i, name] of names.entries()) {
      const first = mock.requests.find((q) => q.threadId === sessions[i].sessionId)!;
      const context = JSON.stringify(first.input);
      expect(CWD.exec(context)?.[1]).toBe(dirs[name]);
      expect(context).toContain(i === 0 ? 'danger-full-access' : 'workspace-write');
    }
  });

  it('a project on Claude beside them: the same gateway runs its conversation on the Claude CLI', async () => {
    const w = gw.watch('pc');
    await w.ready;
    await w.waitReply((await gw.post('pc', '/project gamma')).messageId, undefined, budget);
    const before = mock.requests.length;
    const m = await gw.post('pc', 'hello tag:pc1');
    expect((await w.waitReply(m.messageId, 'reply', budget)).data.text).toBe('ok tag:pc1');
    await waitUntil(() => claudeMock.mainRequests().some((q) => q.lastUserText.includes('tag:pc1')), budget);
    expect(mock.requests.slice(before).some((q) => q.userTexts.some((t) => t.includes('tag:pc1')))).toBe(false);
    const status = (await (await gw.api('GET', '/api/status')).json()) as any;
    const s = status.sessions.find((x: { conversationId: string }) => x.conversationId === 'web:pc');
    expect(s).toMatchObject({ backend: 'claude-stream', project: 'gamma' });
  });
});
