/** `rudder doctor` creates nothing, and checks what the claude-tmux backend needs before a pane fails. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mockAgentEnv, tempDir } from '../support/claude-rig.js';
import { cleanEnv, runCli } from './run-cli.js';

/** An agent that can start in -p mode (a key; the mock is not needed: doctor's probe sends no message). */
const KEY = { ANTHROPIC_API_KEY: 'sk-ant-test-key' };
/** A config whose agent makes no network calls (the probe would wait on them offline). */
function configIn(cwd: string, agent: Record<string, unknown> = {}, home?: string): string {
  const env = mockAgentEnv('http://127.0.0.1:9', home ?? tempDir('probehome'));
  if (!home) delete (env as Record<string, string>).HOME;
  fs.writeFileSync(path.join(cwd, 'rudder.config.json'), JSON.stringify({ agent: { ...agent, env } }));
  return cwd;
}

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
