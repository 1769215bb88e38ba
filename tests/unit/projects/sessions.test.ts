/** Listing a project's Claude Code sessions from the files the real CLI writes. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliProjectDirName, hasSession, listSessions, openSessions } from '../../../src/projects/sessions.js';
import { CLAUDE_BIN, rigEnv, tempDir, waitUntil } from '../../support/claude-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});

/** A plain `claude -p` run, as a person would start one in a terminal. */
function claudeP(cwd: string, home: string, prompt: string, args: string[] = []) {
  const child = spawn(CLAUDE_BIN, ['-p', '--output-format', 'json', ...args, prompt], {
    cwd,
    env: rigEnv(mock.url, home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const done = new Promise<{ session_id: string; result: string }>((resolve, reject) => {
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`claude -p exited ${code}: ${out}`)),
    );
  });
  return { child, done };
}

describe('Claude Code sessions of a project', () => {
  it('lists sessions with their first prompt and last message, newest first, only from that directory', async () => {
    const home = tempDir('shome');
    const cwd = fs.realpathSync(tempDir('sproj'));
    const other = fs.realpathSync(tempDir('sother'));
    const first = await claudeP(cwd, home, 'fix the login bug tag:one').done;
    await claudeP(other, home, 'somewhere else tag:other').done;
    const second = await claudeP(cwd, home, '[[reply:all done here]] second task').done;
    const list = listSessions(path.join(home, '.claude'), [cwd]);
    expect(list.map((s) => s.id)).toEqual([second.session_id, first.session_id]);
    expect(list[1]).toMatchObject({
      firstPrompt: 'fix the login bug tag:one',
      lastMessage: { role: 'assistant', text: 'ok tag:one' },
    });
    expect(list[0]).toMatchObject({
      firstPrompt: '[[reply:all done here]] second task',
      lastMessage: { role: 'assistant', text: 'all done here' },
    });
    expect(list[0]!.openBy).toBeUndefined();
    expect(list[0]!.startedAt).toBeGreaterThan(Date.now() - 120_000);
  });

  it('sees a running CLI as having its session open, and not once it has exited or its pid is reused', async () => {
    const home = tempDir('shome');
    const cwd = fs.realpathSync(tempDir('sproj'));
    const run = claudeP(cwd, home, 'busy [[bash:sleep 4]]', ['--dangerously-skip-permissions']);
    const configDir = path.join(home, '.claude');
    let recorded = '';
    await waitUntil(() => {
      const files = fs.existsSync(path.join(configDir, 'sessions'))
        ? fs.readdirSync(path.join(configDir, 'sessions')).filter((f) => /^\d+\.json$/.test(f))
        : [];
      if (files.length) recorded = fs.readFileSync(path.join(configDir, 'sessions', files[0]!), 'utf8');
      return files.length > 0 && openSessions(configDir).size > 0;
    }, 30_000);
    const [sessionId, by] = [...openSessions(configDir)][0]!;
    expect(by).toMatchObject({ pid: run.child.pid, cwd });
    await waitUntil(() => listSessions(configDir, [cwd]).length > 0, 30_000);
    expect(listSessions(configDir, [cwd])[0]).toMatchObject({ id: sessionId, openBy: { pid: run.child.pid } });
    const result = await run.done;
    expect(result.session_id).toBe(sessionId);
    expect(openSessions(configDir).size).toBe(0);
    // A file left behind by a killed CLI: its pid is gone, or taken by another process.
    const left = JSON.parse(recorded);
    fs.writeFileSync(path.join(configDir, 'sessions', `${left.pid}.json`), recorded);
    expect(openSessions(configDir).size).toBe(0);
    fs.writeFileSync(
      path.join(configDir, 'sessions', `${process.pid}.json`),
      JSON.stringify({ ...left, pid: process.pid }),
    );
    expect(openSessions(configDir).size).toBe(0);
    expect(listSessions(configDir, [cwd])[0]!.openBy).toBeUndefined();
  });

  it('finds the directory the CLI uses for a long path', async () => {
    const home = tempDir('shome');
    const cwd = path.join(
      fs.realpathSync(tempDir('slong')),
      ...Array.from({ length: 6 }, (_, i) => `${'d'.repeat(40)}${i}`),
    );
    fs.mkdirSync(cwd, { recursive: true });
    expect(cwd.length).toBeGreaterThan(200);
    const r = await claudeP(cwd, home, 'deep down tag:long').done;
    expect(fs.readdirSync(path.join(home, '.claude', 'projects'))).toEqual([cliProjectDirName(cwd)]);
    expect(listSessions(path.join(home, '.claude'), [cwd]).map((s) => s.id)).toEqual([r.session_id]);
  });

  it('keeps apart two directories that share the CLI folder name (…/proj/main and …/proj-main)', async () => {
    const home = tempDir('shome');
    const base = fs.realpathSync(tempDir('scollide'));
    const nested = path.join(base, 'proj', 'main');
    const dashed = path.join(base, 'proj-main');
    fs.mkdirSync(nested, { recursive: true });
    fs.mkdirSync(dashed, { recursive: true });
    expect(cliProjectDirName(nested)).toBe(cliProjectDirName(dashed));
    const inNested = await claudeP(nested, home, 'work in the nested one tag:nested').done;
    const inDashed = await claudeP(dashed, home, 'work in the dashed one tag:dashed').done;
    const configDir = path.join(home, '.claude');
    // One folder holds both transcripts: each directory lists only its own.
    expect(fs.readdirSync(path.join(configDir, 'projects'))).toEqual([cliProjectDirName(nested)]);
    expect(listSessions(configDir, [nested]).map((s) => s.id)).toEqual([inNested.session_id]);
    expect(listSessions(configDir, [dashed]).map((s) => s.id)).toEqual([inDashed.session_id]);
    expect(listSessions(configDir, [nested])[0]).toMatchObject({
      firstPrompt: 'work in the nested one tag:nested',
      cwd: nested,
    });
    expect(hasSession(configDir, [nested], inDashed.session_id)).toBe(false);
    expect(hasSession(configDir, [dashed], inDashed.session_id)).toBe(true);
  });
});
