/**
 * `rudder start` with its stdout in a pipe (a nohup file, systemd's journal) prints the page's address
 * without the token, and says how to get it; `rudder token` prints the address with it, which opens the
 * API. The built CLI as `npm start` runs it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, CLI, startChild } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

const exec = promisify(execFile);
let mock: MockApi;
let gw: Awaited<ReturnType<typeof startChild>> | undefined;

beforeAll(async () => {
  mock = await startMockApi();
  gw = await startChild({ agent: agentConfig(mock.url, tempDir('chome')) });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

describe('the startup line when stdout is not a terminal', () => {
  it('gives the address without the token, and `rudder token` gives it with the token', async () => {
    const token = fs.readFileSync(path.join(gw!.home, 'web-token'), 'utf8').trim();
    const out = gw!.output();
    expect(out).toContain(`Rudder is running. Open ${gw!.ep.base}/ with its token: \`rudder token\``);
    expect(out).toContain(path.join(gw!.home, 'web-token'));
    expect(out).not.toContain(token);
    expect(out).not.toContain('#token=');

    const env = { ...process.env, RUDDER_HOME: gw!.home, RUDDER_URL: gw!.ep.base };
    const { stdout } = await exec(process.execPath, [CLI, 'token'], { cwd: gw!.cwd, env });
    expect(stdout.trim()).toBe(`${gw!.ep.base}/#token=${token}`);
    const res = await fetch(`${gw!.ep.base}/api/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  });
});
