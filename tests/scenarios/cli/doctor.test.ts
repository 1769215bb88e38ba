/**
 * `rudder doctor` creates nothing, checks what the claude-tmux backend needs before a pane fails,
 * and sends one real model request through the real CLI: against the mock (200, 401, 403), a
 * refused port and a host that does not resolve, each failure named by its cause.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBE_PROMPT } from '../../../src/agents/claude/doctor-model.js';
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

/** An agent that can start in -p mode with a key. */
const KEY = { ANTHROPIC_API_KEY: 'sk-ant-test-key' };
/** A config whose agent talks to the mock (or to baseUrl). */
function configIn(cwd: string, agent: Record<string, unknown> = {}, home?: string, baseUrl?: string): string {
  const env = mockAgentEnv(baseUrl ?? mock.url, home ?? tempDir('probehome'));
  if (!home) delete (env as Record<string, string>).HOME;
  fs.writeFileSync(path.join(cwd, 'rudder.config.json'), JSON.stringify({ agent: { ...agent, env } }));
  return cwd;
}

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** doctor run against an endpoint, with the agent HOME set in agent.env. */
async function doctorAt(baseUrl: string, args: string[] = []) {
  const cwd = configIn(tempDir('reqcwd'), {}, tempDir('reqhome'), baseUrl);
  return runCli(['doctor', ...args], {
    cwd,
    env: cleanEnv({ HOME: tempDir('userhome'), RUDDER_HOME: tempDir('reqdata') }),
  });
}

describe('rudder doctor: one real model request', () => {
  it('passes when the model answers, and sent exactly one request, the tiny prompt', async () => {
    const before = mock.requests.length;
    const r = await doctorAt(mock.url);
    const sent = mock.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.lastUserText).toContain(PROBE_PROMPT);
    expect(r.stdout).toMatch(
      new RegExp(`✔ model request: ${mock.url.replace(/[.]/g, '\\.')} \\(ANTHROPIC_BASE_URL\\) answered in [\\d.]+ s`),
    );
    expect(r.stderr).toMatch(/rudder doctor: waiting up to \d+ s for claude to start \(it took [\d.]+ s just now\)/);
    expect(r.stderr).toContain(`rudder doctor: waiting up to 30 s for an answer from ${mock.url} (ANTHROPIC_BASE_URL)`);
    expect(r.stdout).toContain('All required checks passed.');
    expect(r.status).toBe(0);
  });

  it.each([
    [401, 'unauthorized', /answered 401: it does not accept the credentials \(ANTHROPIC_API_KEY\)/],
    [403, 'forbidden', /answered 403: the credentials \(ANTHROPIC_API_KEY\) are not allowed to do this/],
  ])('names a %i as %s, with a fix, and fails', async (status, cause, summary) => {
    mock.setScript(() => ({ kind: 'error', status }));
    try {
      const r = await doctorAt(mock.url);
      const line = r.stdout.split('\n').find((l) => l.includes('model request'))!;
      expect(line).toMatch(new RegExp(`^✘ model request: ${cause}: `));
      expect(line).toMatch(summary);
      expect(r.stdout).toMatch(/model request: .*\n {4}fix: /);
      expect(r.stdout).not.toContain('All required checks passed');
      expect(r.status).toBe(1);
    } finally {
      mock.setScript(undefined);
    }
  });

  it('names a refused connection', async () => {
    const port = await closedPort();
    const r = await doctorAt(`http://127.0.0.1:${port}`);
    expect(r.stdout).toContain(`✘ model request: refused: 127.0.0.1:${port} refused the connection (ECONNREFUSED)`);
    expect(r.stdout).toMatch(/fix: Nothing listens there: .*ANTHROPIC_BASE_URL/);
    expect(r.stdout).not.toContain('All required checks passed');
    expect(r.status).toBe(1);
  });

  it('names a host that does not resolve, from ANTHROPIC_BASE_URL in the environment alone', async () => {
    const cwd = tempDir('dnscwd');
    const home = tempDir('dnshome');
    const env = mockAgentEnv('unused', home);
    delete (env as Record<string, string>).ANTHROPIC_BASE_URL;
    fs.writeFileSync(path.join(cwd, 'rudder.config.json'), JSON.stringify({ agent: { env } }));
    const r = await runCli(['doctor'], {
      cwd,
      env: cleanEnv({
        HOME: tempDir('userhome'),
        RUDDER_HOME: tempDir('dnsdata'),
        ANTHROPIC_BASE_URL: 'http://no-such-host.invalid',
      }),
    });
    expect(r.stdout).toMatch(/✘ model request: dns: cannot reach no-such-host\.invalid \((ENOTFOUND|EAI_AGAIN)\)/);
    expect(r.stdout).toMatch(/fix: Check the host name in ANTHROPIC_BASE_URL/);
    expect(r.status).toBe(1);
  });

  it('bounds the wait for an answer and says so', async () => {
    mock.setScript(() => ({ kind: 'hang' }));
    try {
      const r = await doctorAt(mock.url, ['--timeout', '2']);
      expect(r.stderr).toContain(`waiting up to 2 s for an answer from ${mock.url}`);
      expect(r.stdout).toContain(
        `✘ model request: timeout: no answer from ${mock.url} (ANTHROPIC_BASE_URL) within 2 s`,
      );
      expect(r.status).toBe(1);
    } finally {
      mock.setScript(undefined);
    }
  });
});

describe('rudder doctor', () => {
  it('without RUDDER_HOME does not create ~/.rudder (nor a store), and says start will', async () => {
    const home = tempDir('dochome');
    const r = await runCli(['doctor'], { cwd: configIn(tempDir('doccwd')), env: cleanEnv({ HOME: home, ...KEY }) });
    expect(fs.readdirSync(home)).toEqual([]);
    expect(r.stdout).toContain(
      `✔ data dir: ${path.join(home, '.rudder')} does not exist yet; rudder start creates it (${home} is writable)`,
    );
    expect(r.stdout).toContain('✔ store: no store yet');
    expect(r.stdout).toContain('All required checks passed.');
    expect(r.status).toBe(0);
  });

  it('reads an existing store without changing it', async () => {
    const dir = tempDir('docdata');
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path.join(dir, 'rudder.db'));
    db.exec('CREATE TABLE t (x)');
    db.close();
    const before = fs.readFileSync(path.join(dir, 'rudder.db'));
    const r = await runCli(['doctor'], {
      cwd: configIn(tempDir('doccwd')),
      env: cleanEnv({ HOME: tempDir('dochome'), RUDDER_HOME: dir, ...KEY }),
    });
    expect(r.stdout).toContain('✔ store: SQLite integrity: ok');
    // Not migrated, not put in WAL mode: the same bytes.
    expect(fs.readFileSync(path.join(dir, 'rudder.db')).equals(before)).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(['rudder.db']);
  });

  it('with claude-tmux, fails when the agent HOME never ran the TUI, and passes once it has', async () => {
    const home = tempDir('tuihome');
    const cwd = configIn(tempDir('tuicwd'), { backend: 'claude-tmux' });
    const env = cleanEnv({ HOME: home, RUDDER_HOME: tempDir('tuidata'), ...KEY });
    const before = await runCli(['doctor'], { cwd, env });
    expect(before.stdout).toContain(
      `✘ claude first run: ${path.join(home, '.claude.json')} is missing: the TUI has never run in this HOME`,
    );
    expect(before.stdout).toMatch(
      /fix: Run `claude` once in a terminal as the user Rudder runs as \(HOME=.*\) and finish its first-run screens/,
    );
    expect(before.stdout).not.toContain('All required checks passed');
    expect(before.status).toBe(1);

    fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ numStartups: 1 }));
    const half = await runCli(['doctor'], { cwd, env });
    expect(half.stdout).toContain('lacks hasCompletedOnboarding: true');
    expect(half.status).toBe(1);

    fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
    const after = await runCli(['doctor'], { cwd, env });
    expect(after.stdout).toContain('✔ claude first run:');
    expect(after.stdout).toMatch(/✔ tmux: tmux \d/);
    expect(after.stdout).toContain('All required checks passed.');
    expect(after.status).toBe(0);
  });

  it('names the agent HOME from agent.env when it is set there', async () => {
    const agentHome = tempDir('agenthome');
    const cwd = configIn(tempDir('tuicwd'), { backend: 'claude-tmux' }, agentHome);
    const r = await runCli(['doctor'], {
      cwd,
      env: cleanEnv({ HOME: tempDir('userhome'), RUDDER_HOME: tempDir('tuidata'), ...KEY }),
    });
    expect(r.stdout).toContain(`✘ claude first run: ${path.join(agentHome, '.claude.json')} is missing`);
  });
});
