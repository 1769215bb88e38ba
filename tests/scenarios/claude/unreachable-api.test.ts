/**
 * A model endpoint that cannot be reached, through the whole gateway on the real CLI with its
 * retries on: each retry updates one notice (its key) instead of adding a line, the failure is
 * said once with its cause and fix, and the history after a reload holds it once too.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Step, TurnView } from '../../../src/gateway/steps/types.js';
import type { HistoryPage } from '../../../src/http/wire.js';
import { mockAgentEnv, tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('an unreachable model endpoint (real CLI, retries on)', () => {
  it('shows one retry notice that updates, then the failure once, with its cause and fix', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const home = tempDir('chome');
    const gw = await startInProcess({
      agent: agentConfig(url, home, { env: { ...mockAgentEnv(url, home), CLAUDE_CODE_MAX_RETRIES: '2' } }),
    });
    try {
      const w = gw.watch('down');
      await w.ready;
      const m = await gw.post('down', 'hello tag:down');
      const failed = await w.waitReply(m.messageId, 'notice', 90_000);
      expect(String(failed.data.text)).toMatch(/refused the connection \(ECONNREFUSED\)/);

      const history = (await (await gw.api('GET', '/api/conversations/down/messages')).json()) as HistoryPage;
      const turn = history.turns.find((t: TurnView) => t.inputIds.includes(m.messageId))!;
      const notices = turn.steps.filter((s: Step) => s.kind === 'notice');
      // Two retries, one line: the last attempt's text under the key.
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ key: 'api-retry', text: expect.stringMatching(/^retrying 2\/2 /) });
      // Not the CLI's own "API Error: …" text as if the agent had said it.
      expect(turn.steps.filter((s: Step) => s.kind === 'text')).toEqual([]);
      // The failure once: one notice in the chat, one error event, the message failed.
      expect(history.replies.filter((r) => /ECONNREFUSED/.test(r.text))).toHaveLength(1);
      expect(w.of('error', (d) => (d.messageIds as string[]).includes(m.messageId))).toHaveLength(1);
      expect(history.messages.find((x) => x.id === m.messageId)?.state).toBe('failed');
    } finally {
      await gw.stop();
    }
  });
});
