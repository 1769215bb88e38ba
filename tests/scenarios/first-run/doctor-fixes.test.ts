/**
 * `rudder doctor`'s model request names the fix of each cause it knows, never "run rudder doctor": no key
 * and no login (the CLI's "Not logged in"), a model the endpoint does not serve (404), an account without
 * credit (402). The built CLI, the real claude against the mock Messages API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAgentEnv, tempDir } from '../../support/claude-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockApi;
beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});

/** doctor against the mock, with the mock's key, or with no key at all (and no login in the agent's HOME). */
async function doctor(keyless = false) {
  const cwd = tempDir('fixcwd');
  const env: Record<string, string> = mockAgentEnv(mock.url, tempDir('fixhome'));
  if (keyless) delete env.ANTHROPIC_API_KEY;
  fs.writeFileSync(path.join(cwd, 'rudder.config.json'), JSON.stringify({ agent: { env } }));
  const r = await runCli(['doctor'], { cwd, env: cleanEnv({ HOME: tempDir('user'), RUDDER_HOME: tempDir('data') }) });
  const at = r.stdout.split('\n').findIndex((l) => l.includes('model request'));
  return { line: r.stdout.split('\n')[at] ?? r.stdout, fix: r.stdout.split('\n')[at + 1] ?? '', status: r.status };
}

describe("doctor's fix for a failed model request", () => {
  it('without a key or a login, says how to give claude credentials', async () => {
    const r = await doctor(true);
    expect(r.line).toContain('✘ model request: logged-out: claude has no credentials');
    expect(r.fix).toContain('fix: Set ANTHROPIC_API_KEY');
    expect(r.fix).toContain('run `claude` once in a terminal');
    expect(r.fix).not.toContain('rudder doctor');
    expect(r.status).toBe(1);
  });

  it.each([
    [404, 'model', 'Set agent.model'],
    [402, 'billing', 'Add credit or a plan'],
  ])('names a %i as %s, with its own fix', async (status, cause, fix) => {
    mock.setScript(() => ({ kind: 'error', status }));
    try {
      const r = await doctor();
      expect(r.line).toMatch(new RegExp(`^✘ model request: ${cause}: `));
      expect(r.fix).toContain(`fix: ${fix}`);
      expect(r.fix).not.toContain('rudder doctor');
    } finally {
      mock.setScript(undefined);
    }
  });
});
