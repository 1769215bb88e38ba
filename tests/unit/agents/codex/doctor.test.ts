/** The doctor's codex checks, on the REAL codex against the mock Responses API. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CodexCheck, checkCodex } from '../../../../src/agents/codex/doctor.js';
import { mockAgentEnv, tempDir } from '../../../support/claude-rig.js';
import { CODEX_BIN, codexLaunch } from '../../../support/codex-rig.js';
import { fail, type MockResponses, mockCodexConfig, startMockResponses } from '../../../support/mock-responses.js';
import { cleanEnv, runCli } from '../../../support/run-cli.js';

let mock: MockResponses;
beforeAll(async () => {
  mock = await startMockResponses();
});
afterEach(() => mock.setScript(undefined));
afterAll(async () => {
  await mock.close();
});

const byName = (checks: CodexCheck[]) => new Map(checks.map((c) => [c.name, c]));

describe('codex doctor checks (real codex)', () => {
  it('passes every check against a working provider, and the minimal request reaches the model', async () => {
    const launch = codexLaunch({ mockUrl: mock.url });
    const before = mock.requests.length;
    const checks = await checkCodex({ configured: CODEX_BIN, config: launch.config, env: {}, agentEnv: launch.env });
    expect(checks.map((c) => c.name)).toEqual([
      'codex binary',
      'codex version',
      'codex app-server',
      'codex auth',
      'codex request',
    ]);
    for (const c of checks) expect(c, c.name).toMatchObject({ ok: true });
    const m = byName(checks);
    expect(m.get('codex version')!).toMatchObject({ detail: 'codex-cli 0.171.0' });
    expect(m.get('codex app-server')!.detail).toContain(launch.codexHome);
    expect(m.get('codex request')!.detail).toMatch(/the model answered in \d+ ms: "ok"/);
    expect(mock.requests.length).toBe(before + 1);
    expect(mock.requests.at(-1)!.lastUserText).toBe('Reply with the single word OK.');
  });

  it('rudder doctor runs them when agent.backend is codex', async () => {
    const cwd = tempDir('doccodex');
    const launch = codexLaunch({ mockUrl: mock.url });
    const home = path.dirname(launch.codexHome);
    const agent = {
      backend: 'codex',
      codex: { bin: CODEX_BIN, config: mockCodexConfig(mock.url) },
      env: { ...mockAgentEnv('http://127.0.0.1:9', home), CODEX_HOME: launch.codexHome },
    };
    fs.writeFileSync(path.join(cwd, 'rudder.config.json'), JSON.stringify({ agent }));
    const r = await runCli(['doctor'], {
      cwd,
      env: cleanEnv({ HOME: home, RUDDER_HOME: tempDir('docdata'), ANTHROPIC_API_KEY: 'sk-ant-test-key' }),
    });
    expect(r.stdout).toContain(`✔ codex binary: ${CODEX_BIN} (from config)`);
    expect(r.stdout).toContain('✔ codex version: codex-cli 0.171.0');
    expect(r.stdout).toMatch(/✔ codex request: the model answered in \d+ ms/);
  });

  it('a missing binary set in agent.codex.bin fails with the setting named and the fix', async () => {
    const missing = path.join(tempDir('nobin'), 'codex');
    const checks = await checkCodex({ configured: missing, env: { PATH: '' }, agentEnv: {} });
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ name: 'codex binary', ok: false });
    expect(checks[0]!.detail).toContain(`agent.codex.bin is set to ${missing}`);
    expect(checks[0]!.fix).toMatch(/npm install/);
  });

  it('no auth for the OpenAI provider fails the auth check with the fix, and no request is made', async () => {
    const launch = codexLaunch({ mockUrl: mock.url });
    const before = mock.requests.length;
    const checks = await checkCodex({ configured: CODEX_BIN, config: {}, env: {}, agentEnv: launch.env });
    const auth = byName(checks).get('codex auth')!;
    expect(auth.ok).toBe(false);
    expect(auth.detail).toContain(launch.codexHome);
    expect(auth.fix).toMatch(/codex login/);
    expect(byName(checks).has('codex request')).toBe(false);
    expect(mock.requests.length).toBe(before);
  });

  it('a rate-limited request fails the request check and says to wait', async () => {
    mock.setScript(() => fail(429, 'usage'));
    const launch = codexLaunch({ mockUrl: mock.url });
    const checks = await checkCodex({
      configured: CODEX_BIN,
      config: mockCodexConfig(mock.url),
      env: {},
      agentEnv: launch.env,
    });
    const req = byName(checks).get('codex request')!;
    expect(req.ok).toBe(false);
    expect(req.fix).toMatch(/Wait for the limit to reset/);
  });
});
