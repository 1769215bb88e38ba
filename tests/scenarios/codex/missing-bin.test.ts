/**
 * agent.codex.bin naming no binary, through a gateway as `npm start` runs it: start warns naming
 * the setting and the fix (and says nothing of Claude, which no conversation runs on), `rudder
 * status` shows it, a message gets a failure notice that names codex, and nothing hangs: the next
 * message fails the same way, at once. No codex process is started, none is left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../support/claude-rig.js';
import { codexAgent } from '../../support/codex-gateway.js';
import { startChild } from '../../support/gateway-rig.js';
import { type MockResponses, startMockResponses } from '../../support/mock-responses.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockResponses;
let gw: Awaited<ReturnType<typeof startChild>>;

beforeAll(async () => {
  mock = await startMockResponses();
  const agent = codexAgent(mock.url);
  gw = await startChild({ agent: { ...agent, codex: { ...agent.codex, bin: '/nonexistent/codex' } } });
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

describe('agent.codex.bin set to a path that does not exist', () => {
  it('start warns with the setting and the fix, and keeps the page up; status shows it', async () => {
    await waitUntil(() => gw.output().includes('cannot start until this is fixed'), 30_000);
    expect(gw.output()).toMatch(
      new RegExp(
        String.raw`warning: agent\.codex\.bin is set to \/nonexistent\/codex, which is not an executable file\. ` +
          String.raw`Codex conversations cannot start until this is fixed \(fix: npm install .*agent\.codex\.bin`,
      ),
    );
    // Claude is no conversation's agent here: it is neither checked nor warned about.
    expect(gw.output()).not.toMatch(/Claude conversations cannot start/);
    expect(gw.output()).toContain('Rudder is running. Open http');
    const env = cleanEnv({ RUDDER_HOME: gw.home, RUDDER_URL: gw.ep.base });
    const s = await runCli(['status'], { cwd: gw.cwd, env });
    expect(s.stdout).toMatch(/^Codex: ✘ agent\.codex\.bin is set to \/nonexistent\/codex.*\(fix: npm install/m);
    expect(s.stdout).not.toMatch(/^Claude:/m);
    const json = JSON.parse((await runCli(['status', '--json'], { cwd: gw.cwd, env })).stdout);
    expect(json.agent).toMatchObject({
      backend: 'codex',
      claude: null,
      codex: { agent: 'Codex', ok: false, path: '/nonexistent/codex', source: null },
    });
  });

  it('a message gets a failure notice naming codex and the setting; the next one too, at once', async () => {
    const w = gw.watch('nobin');
    await w.ready;
    for (const text of ['hello tag:nb1', 'again tag:nb2']) {
      const m = await gw.post('nobin', text);
      const n = await w.waitReply(m.messageId, 'notice', 30_000);
      expect(n.data.text).toMatch(/codex binary was not found/);
      expect(n.data.text).toContain('agent.codex.bin is set to /nonexistent/codex, which is not an executable file.');
      const err = w.of('error', (d) => (d.messageIds as string[]).includes(m.messageId));
      expect(err.map((e) => e.data.code)).toEqual(['CODEX_BINARY_MISSING']);
      const row = (await (await gw.api('GET', '/api/conversations/nobin/messages')).json()) as any;
      expect(row.messages.find((x: { id: string }) => x.id === m.messageId).state).toBe('failed');
      expect(w.repliesFor(m.messageId)).toHaveLength(1);
    }
    expect(mock.requests).toHaveLength(0);
    const status = (await (await gw.api('GET', '/api/status')).json()) as any;
    expect(status.queues).toEqual([]);
    for (const s of status.sessions) expect(s.pid).toBeNull();
  });
});
