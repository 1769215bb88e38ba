/**
 * `rudder start`, `send` and `status` around a claude binary that is missing or broken, a bad
 * conversation id and a config file that is not valid: against gateways in child processes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startChild } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startChild>>;

beforeAll(async () => {
  mock = await startMockApi();
  gw = await startChild({ agent: agentConfig(mock.url, tempDir('chome')) });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

const portOf = (base: string) => Number(new URL(base).port);

describe('rudder send: when it ends', () => {
  it('a bad conversation id: prints the 400 and exits 1 at once', async () => {
    const r = await runCli(['send', 'bad id!', 'hi'], {
      cwd: gw.cwd,
      env: cleanEnv({ RUDDER_HOME: gw.home, RUDDER_URL: gw.ep.base }),
    });
    expect(r.stderr).toMatch(/400 BAD_REQUEST: A conversation id is 1-64 letters/);
    expect(r.status).toBe(1);
    // Nothing was posted: no message row came of it.
    const status = JSON.parse(
      (
        await runCli(['status', '--json'], {
          cwd: gw.cwd,
          env: cleanEnv({ RUDDER_HOME: gw.home, RUDDER_URL: gw.ep.base }),
        })
      ).stdout,
    );
    expect(Object.values(status.messages as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(0);
  });
});

describe('rudder send: an unknown conversation', () => {
  it('is refused without --new, creating nothing; --new starts it, and later sends need no flag', async () => {
    const env = cleanEnv({ RUDDER_HOME: gw.home, RUDDER_URL: gw.ep.base });
    const list = async () =>
      (
        (await (
          await fetch(`${gw.ep.base}/api/conversations`, { headers: { authorization: `Bearer ${gw.ep.token}` } })
        ).json()) as {
          conversations: Array<{ id: string }>;
        }
      ).conversations.map((c) => c.id);
    const typo = await runCli(['send', 'wrok', 'run the tests tag:typo'], { cwd: gw.cwd, env });
    expect(typo.status).toBe(1);
    expect(typo.stderr).toContain(
      'rudder send: there is no conversation "wrok". To start it, run: rudder send --new wrok',
    );
    expect(typo.stdout).toBe('');
    expect(await list()).not.toContain('wrok');
    expect(mock.requests.some((r) => r.lastUserText.includes('tag:typo'))).toBe(false);

    const first = await runCli(['send', '--new', 'work-new', 'hello tag:new-first'], { cwd: gw.cwd, env });
    expect(first.stdout.trim()).toBe('ok tag:new-first');
    expect(first.status).toBe(0);
    const again = await runCli(['send', 'work-new', 'and again tag:new-again'], { cwd: gw.cwd, env });
    expect(again.stdout.trim()).toBe('ok tag:new-again');
    expect(again.status).toBe(0);
  });
});

describe('rudder send and status with a config file that is not valid', () => {
  it('use its web address and the token in the data dir, and say so on stderr', async () => {
    const cwd = tempDir('badcfg');
    fs.writeFileSync(
      path.join(cwd, 'rudder.config.json'),
      JSON.stringify({ web: { port: portOf(gw.ep.base) }, agent: { bakend: 'claude-stream' } }),
    );
    const env = cleanEnv({ RUDDER_HOME: gw.home });
    const s = await runCli(['status'], { cwd, env });
    expect(s.stderr).toMatch(/rudder\.config\.json is not valid \(agent: .*\); using its web address/);
    expect(s.stdout).toMatch(/^Rudder \d+\.\d+\.\d+, up/);
    expect(s.status).toBe(0);
    const r = await runCli(['send', '--new', 'badcfg', 'hello tag:badcfg'], { cwd, env });
    expect(r.stderr).toContain('is not valid');
    expect(r.stdout.trim()).toBe('ok tag:badcfg');
    expect(r.status).toBe(0);
  });

  it(
    'fall back to RUDDER_URL and RUDDER_TOKEN, or to the default address, when the file is not even ' + 'JSON',
    async () => {
      const cwd = tempDir('notjson');
      fs.writeFileSync(path.join(cwd, 'rudder.config.json'), '{ "web": { "port": 1,');
      const viaEnv = await runCli(['status', '--json'], {
        cwd,
        env: cleanEnv({ RUDDER_HOME: tempDir('nohome'), RUDDER_URL: gw.ep.base, RUDDER_TOKEN: gw.ep.token }),
      });
      expect(viaEnv.status).toBe(0);
      expect(JSON.parse(viaEnv.stdout).steering).toBeDefined();
      const fallback = await runCli(['status'], { cwd, env: cleanEnv({ RUDDER_HOME: gw.home }) });
      expect(fallback.stderr).toMatch(/cannot be read as JSON .*; using the default address\. Set RUDDER_URL/);
      expect(fallback.stderr).toMatch(/127\.0\.0\.1:8787/);
    },
  );
});

describe('a missing or broken claude binary', () => {
  it(
    'a broken one: start warns with the fix and keeps the page up, status shows it, send exits 1 on the ' +
      'error event',
    async () => {
      const bin = path.join(tempDir('broken'), 'claude');
      fs.writeFileSync(bin, '#!/bin/sh\necho "claude: cannot execute binary file" >&2\nexit 126\n', { mode: 0o755 });
      const child = await startChild({ agent: agentConfig(mock.url, tempDir('chome'), { claudeBin: bin }) });
      try {
        await waitUntil(() => child.output().includes('Claude conversations cannot start until this is fixed'), 20_000);
        expect(child.output()).toMatch(
          new RegExp(
            `warning: ${bin} \\(from config\\) does not run: .claude --version. failed \\(claude: cannot ` +
              `execute binary file\\)\\..*\\(fix: Reinstall Claude Code`,
          ),
        );
        expect(child.output()).toContain('Rudder is running. Open http');
        const env = cleanEnv({ RUDDER_HOME: child.home, RUDDER_URL: child.ep.base });
        const s = await runCli(['status'], { cwd: child.cwd, env });
        expect(s.stdout).toMatch(/^Claude: ✘ .*does not run.*\(fix: Reinstall Claude Code/m);
        const json = JSON.parse((await runCli(['status', '--json'], { cwd: child.cwd, env })).stdout);
        expect(json.agent.claude).toMatchObject({ ok: false, path: bin, source: 'config' });
        const r = await runCli(['send', '--new', 'b1', 'hello'], { cwd: child.cwd, env });
        expect(r.stderr).toMatch(/sent m_\w+: the agent started on it/);
        expect(r.stderr).toMatch(/^error AGENT_\w+: /m);
        expect(r.status).toBe(1);
      } finally {
        await child.stop();
      }
    },
  );

  it('a missing one: the warning names the setting and the fix; send exits 1', async () => {
    const child = await startChild({
      agent: agentConfig(mock.url, tempDir('chome'), { claudeBin: '/nonexistent/claude' }),
    });
    try {
      await waitUntil(() => child.output().includes('Claude conversations cannot start until this is fixed'), 20_000);
      expect(child.output()).toMatch(
        new RegExp(
          String.raw`warning: agent\.claudeBin is set to \/nonexistent\/claude, which is not an executable file\.` +
            String.raw`.*\(fix: npm install`,
        ),
      );
      const env = cleanEnv({ RUDDER_HOME: child.home, RUDDER_URL: child.ep.base });
      const r = await runCli(['send', '--new', 'm1', 'hello'], { cwd: child.cwd, env });
      expect(r.stderr).toMatch(/^error CLAUDE_BINARY_MISSING: .*\/nonexistent\/claude/m);
      expect(r.status).toBe(1);
    } finally {
      await child.stop();
    }
  });

  it('a working one: no warning, and status names its version', async () => {
    // The only warning is that the test's config sits in the agent's working directory.
    expect(gw.output()).not.toContain('cannot start until this is fixed');
    expect(gw.output()).not.toMatch(/warning: (?!\S+rudder\.config\.json is inside the agent's working directory)/);
    const s = await runCli(['status'], {
      cwd: gw.cwd,
      env: cleanEnv({ RUDDER_HOME: gw.home, RUDDER_URL: gw.ep.base }),
    });
    expect(s.stdout).toMatch(/^Claude: 2\.1\.332 \(Claude Code\) at .*claude.* \(from \w+\); backend claude-stream$/m);
  });
});
