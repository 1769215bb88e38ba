/** The `rudder` command against a running gateway (child process), on the real CLI and the mock. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, CLI, startChild } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

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

/** Runs the CLI without blocking this process: the mock Messages API lives here. */
function run(
  args: string[],
  opts: { cwd: string; env: Record<string, string | undefined> },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: opts.env });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
const rudder = (args: string[], env: Record<string, string> = {}) =>
  run(args, { cwd: gw.cwd, env: { ...process.env, RUDDER_HOME: gw.home, RUDDER_URL: gw.ep.base, ...env } });

describe('rudder send / status', () => {
  it('send prints the reply stream and exits 0', async () => {
    const r = await rudder(['send', '--new', 'cli1', 'hello from the cli tag:cli']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('ok tag:cli');
    expect(r.stderr).toMatch(/sent m_\w+: the agent started on it/);
    expect(r.stderr).toContain('👀 received');
  });

  it('send prints a command answer', async () => {
    const r = await rudder(['send', 'cli1', '/status']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Queue mode: steer');
  });

  it('status prints the report for humans and as JSON', async () => {
    const human = await rudder(['status']);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(
        'Steering: on; default mode steer; agent processes 1, 1 idle; maxLive [2-8] ' +
          String.raw`\(from [\d.]+ GB available memory: one per 2 GB, 2\.\.8\)`,
      ),
    );
    // Named by its title (its first message), beside the id.
    expect(human.stdout).toMatch(/web:cli1 {2}"hello from the cli tag:cli" {2}claude-stream {2}pid \d+ {2}idle/);
    const json = JSON.parse((await rudder(['status', '--json'])).stdout);
    expect(json.sessions[0]).toMatchObject({
      conversationId: 'web:cli1',
      backend: 'claude-stream',
      state: 'idle',
      steered: 0,
    });
    expect(json.sessions[0].rssBytes).toBeGreaterThan(0);
    expect(json.owedReplies).toBe(0);
    // What today cost: the one turn above (and /status's none), as the store has it.
    expect(json.cost.today.turns).toBe(1);
    expect(json.cost.today.usd).toBeGreaterThan(0);
    expect(human.stdout).toMatch(/^Cost today \(\d{4}-\d\d-\d\d\): \$0\.\d{4} in 1 turn; default \$0\.\d{4}$/m);
  });

  it('explains an unreachable gateway', async () => {
    const r = await rudder(['status'], { RUDDER_URL: 'http://127.0.0.1:9' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not reachable at http:\/\/127.0.0.1:9.*npm start/);
  });
});

describe('rudder doctor', () => {
  it('passes on a working setup, with a real stream-json probe', async () => {
    const r = await rudder(['doctor']);
    expect(r.stdout).toMatch(/✔ claude binary: .*claude/);
    expect(r.stdout).toMatch(/✔ claude version: 2\.1\.332/);
    expect(r.stdout).toContain('✔ claude stream-json: accepts --input-format stream-json');
    expect(r.stdout).toMatch(/✔ store: SQLite integrity: ok/);
    expect(r.stdout).toMatch(/✔ model request: http:\/\/127\.0\.0\.1:\d+ \(ANTHROPIC_BASE_URL\) answered in/);
    expect(r.stdout).toContain('All required checks passed.');
    expect(r.status).toBe(0);
  });

  it('fails with a fix when the binary is missing or tmux is required but absent', () => {
    const cwd = tempDir('doc');
    fs.writeFileSync(
      path.join(cwd, 'rudder.config.json'),
      JSON.stringify({
        agent: { claudeBin: '/nonexistent/claude', backend: 'claude-tmux', env: { HOME: tempDir('fresh-home') } },
      }),
    );
    // An empty PATH directory: no tmux to find (node is run by its absolute path).
    const r = spawnSync(process.execPath, [CLI, 'doctor'], {
      cwd,
      env: { ...process.env, RUDDER_HOME: tempDir('dh'), PATH: tempDir('empty-path') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/✘ claude binary: .*agent\.claudeBin is set to \/nonexistent\/claude/);
    expect(r.stdout).toMatch(/fix: npm install/);
    expect(r.stdout).toContain('✘ tmux: tmux is not installed');
    expect(r.stdout).toMatch(/fix: apt-get install -y tmux/);
    // The agent's HOME (a fresh one here) has never run the TUI either: every problem is listed at once.
    expect(r.stdout).toMatch(/✘ claude first run: .*\.claude\.json is missing/);
    // Whether the model can be reached is not known without a binary: said, and counted as failed.
    expect(r.stdout).toContain('✘ model request: not checked: there is no claude binary to send it');
    expect(r.stdout).toMatch(/4 required check\(s\) failed/);
  });
});

describe('shutdown', () => {
  it('SIGTERM drains the in-flight turn, then stops every agent process', async () => {
    const child = await startChild({ agent: agentConfig(mock.url, tempDir('chome')), shutdownDrainSeconds: 20 });
    const w = child.watch('drain');
    await w.ready;
    const m = await child.post('drain', 'finish this [[bash:sleep 2]] tag:d');
    await w.wait('status', (d) => d.state === 'tool');
    const status = JSON.parse(
      (
        await run(['status', '--json'], {
          cwd: child.cwd,
          env: { ...process.env, RUDDER_HOME: child.home, RUDDER_URL: child.ep.base },
        })
      ).stdout,
    );
    const pid = status.sessions[0].pid as number;
    child.child.kill('SIGTERM');
    await new Promise((r) => child.child.once('exit', r));
    expect(child.child.exitCode).toBe(0);
    expect(pidAlive(pid)).toBe(false);
    // The turn finished during the drain: its reply was committed and delivered before exit.
    const db = (await import('better-sqlite3')).default(path.join(child.home, 'rudder.db'), { readonly: true });
    expect(db.prepare('SELECT state FROM messages WHERE id = ?').get(m.messageId)).toEqual({ state: 'answered' });
    expect(db.prepare('SELECT COUNT(*) AS n FROM outbox WHERE delivered_at IS NULL').get()).toEqual({ n: 0 });
    db.close();
    expect(fs.readFileSync(path.join(child.home, 'rudder.log'), 'utf8')).toContain(
      'stopping: draining in-flight turns',
    );
  });

  it('SIGINT stops the gateway and its agents', async () => {
    const child = await startChild({ agent: agentConfig(mock.url, tempDir('chome')) });
    const w = child.watch('int');
    await w.ready;
    const m = await child.post('int', 'hi');
    await w.waitReply(m.messageId);
    const pids = (
      JSON.parse(
        (
          await run(['status', '--json'], {
            cwd: child.cwd,
            env: { ...process.env, RUDDER_HOME: child.home, RUDDER_URL: child.ep.base },
          })
        ).stdout,
      ).sessions as Array<{ pid: number }>
    ).map((s) => s.pid);
    child.child.kill('SIGINT');
    await new Promise((r) => child.child.once('exit', r));
    await waitUntil(() => pids.every((p) => !pidAlive(p)), 5000);
  });
});
