/**
 * The agent's environment is an allow-list, seen from the agent itself: the real CLI's Bash tool
 * runs `env` and the mock Messages API reads the tool result. A gateway started with secrets in
 * its environment hands the agent none of them, except a variable named in agent.passEnv. What
 * Claude Code reads for its endpoint passes without being named: ANTHROPIC_BASE_URL in the gateway's
 * environment alone points the agent at the mock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAgentEnv, tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});

describe('the agent environment (real CLI, its Bash tool)', () => {
  it(
    'does not see GITHUB_TOKEN or OPENAI_API_KEY from the gateway; sees what passEnv names and what ' +
      'agent.env sets',
    async () => {
      const gw = await startInProcess(
        {
          agent: agentConfig(mock.url, tempDir('chome'), {
            passEnv: ['ANTHROPIC_API_KEY', 'RUDDER_TEST_PASSED', 'MY_TOOL_TOKEN'],
          }),
        },
        {
          env: {
            GITHUB_TOKEN: 'ghp_gateway_secret_1',
            OPENAI_API_KEY: 'sk-openai-gateway-secret',
            AWS_SECRET_ACCESS_KEY: 'aws-gateway-secret',
            MY_TOOL_TOKEN: 'tool-token-passed',
            RUDDER_TEST_PASSED: 'never',
          },
        },
      );
      try {
        const w = gw.watch('env');
        await w.ready;
        const m = await gw.post('env', '[[bash:env; echo ENV-DONE]] tag:env');
        await w.waitReply(m.messageId);
        const result = mock
          .mainRequests()
          .find((r) => r.afterTool && r.lastUserText.includes('ENV-DONE'))!.lastUserText;
        expect(result).toContain('MY_TOOL_TOKEN=tool-token-passed');
        expect(result).toContain('ANTHROPIC_BASE_URL=' + mock.url);
        expect(result).toMatch(/^PATH=/m);
        for (const secret of [
          'ghp_gateway_secret_1',
          'sk-openai-gateway-secret',
          'aws-gateway-secret',
          'GITHUB_TOKEN',
          'OPENAI_API_KEY',
          'RUDDER_TEST_PASSED',
        ]) {
          expect(result, secret).not.toContain(secret);
        }
      } finally {
        await gw.stop();
      }
    },
  );

  it('reaches the endpoint ANTHROPIC_BASE_URL names in the environment alone (no passEnv, no agent.env)', async () => {
    const home = tempDir('chome');
    // agent.env keeps only the test's private HOME and retries off; the endpoint and key come from the environment.
    const { ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, ...rest } = mockAgentEnv(mock.url, home);
    const gw = await startInProcess(
      { agent: { permissionMode: 'bypassPermissions', env: rest } },
      { env: { ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY } },
    );
    try {
      const before = mock.mainRequests().length;
      const w = gw.watch('base-url');
      await w.ready;
      const m = await gw.post('base-url', 'hello tag:base-url-first');
      const reply = await w.waitReply(m.messageId);
      expect(reply.data.text).toBe('ok tag:base-url-first');
      expect(
        mock
          .mainRequests()
          .slice(before)
          .filter((r) => r.lastUserText.includes('tag:base-url-first')),
      ).toHaveLength(1);
    } finally {
      await gw.stop();
    }
  });
});
