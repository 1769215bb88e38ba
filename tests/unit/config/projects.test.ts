/** The projects section: resolved paths and settings, and config errors that name the key. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { isRudderError } from '../../../src/errors.js';
import { channelProject, projectAgent, projectSet } from '../../../src/projects/projects.js';
import { tempDir } from '../../support/claude-rig.js';
import { CLI } from '../../support/gateway-rig.js';
import { gitRepo } from '../../support/git-rig.js';

const dataDir = tempDir('pdata');

function problem(config: unknown): string {
  try {
    parseConfig(config, 'config', { dataDir });
  } catch (err) {
    if (isRudderError(err, 'CONFIG_INVALID')) return err.message;
    throw err;
  }
  throw new Error('the config was accepted');
}

describe('projects in the config', () => {
  it('without projects, agent.cwd is the one implicit project "default"', () => {
    const cwd = tempDir('pcwd');
    const set = projectSet(parseConfig({ agent: { cwd } }, 'config', { dataDir }));
    expect(set).toEqual({
      projects: [{ name: 'default', path: cwd, implicit: true, worktrees: false }],
      defaultName: 'default',
    });
  });

  it('resolves paths (~, relative) and takes the first project as the default unless told', () => {
    const a = tempDir('pa');
    const home = fs.mkdtempSync(path.join(os.homedir(), '.rudder-test-'));
    try {
      const cfg = parseConfig(
        {
          projects: {
            api: { path: a },
            web: { path: `~/${path.basename(home)}`, model: 'opus' },
            rel: { path: path.relative(process.cwd(), a) },
          },
        },
        'config',
        { dataDir },
      );
      const set = projectSet(cfg);
      expect(set.defaultName).toBe('api');
      expect(set.projects.map((p) => [p.name, p.path])).toEqual([
        ['api', a],
        ['web', home],
        ['rel', a],
      ]);
      expect(
        projectSet(
          parseConfig({ projects: { api: { path: a }, web: { path: a } }, defaultProject: 'web' }, 'config', {
            dataDir,
          }),
        ).defaultName,
      ).toBe('web');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("a project's settings replace agent.*, the rest comes from agent", () => {
    const cfg = parseConfig(
      {
        agent: { model: 'sonnet', permissionMode: 'acceptEdits', allowedTools: ['Read'], appendSystemPrompt: 'global' },
        projects: { api: { path: tempDir('po'), model: 'opus', backend: 'claude-tmux', disallowedTools: ['Bash'] } },
      },
      'config',
      { dataDir },
    );
    const p = projectSet(cfg).projects[0]!;
    expect(projectAgent(cfg.agent, p)).toEqual({
      backend: 'claude-tmux',
      model: 'opus',
      permissionMode: 'acceptEdits',
      allowedTools: ['Read'],
      disallowedTools: ['Bash'],
      appendSystemPrompt: 'global',
    });
  });

  it('binds a chat, or one of its topics, to a project', () => {
    const dir = tempDir('pb');
    const cfg = parseConfig(
      {
        projects: { api: { path: dir }, web: { path: dir } },
        channels: { telegram: { projects: { '-100': 'api', '-100:7': 'web' } } },
      },
      'config',
      { dataDir },
    );
    expect(channelProject(cfg, 'telegram', '-100:7')).toBe('web');
    expect(channelProject(cfg, 'telegram', '-100:8')).toBe('api');
    expect(channelProject(cfg, 'telegram', '-100')).toBe('api');
    expect(channelProject(cfg, 'telegram', '-200')).toBeUndefined();
    expect(channelProject(cfg, 'slack', '-100')).toBeUndefined();
  });

  it('names the key of each bad project setting', () => {
    const dir = tempDir('pbad');
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'x');
    const inside = path.join(dataDir, 'inside');
    fs.mkdirSync(inside, { recursive: true });
    expect(problem({ projects: { api: { path: path.join(dir, 'nope') } } })).toMatch(
      /projects\.api\.path: \S+nope does not exist/,
    );
    expect(problem({ projects: { api: { path: file } } })).toMatch(/projects\.api\.path: \S+a-file is not a directory/);
    expect(problem({ projects: { api: { path: inside } } })).toMatch(
      /projects\.api\.path: \S+inside is inside Rudder's data dir/,
    );
    expect(problem({ projects: { api: { path: dataDir } } })).toMatch(
      /projects\.api\.path: .*inside Rudder's data dir/,
    );
    expect(problem({ projects: { api: { path: dir, worktrees: true } } })).toMatch(
      /projects\.api\.worktrees: \S+ is not a git repository/,
    );
    expect(problem({ projects: { api: { path: dir } }, defaultProject: 'web' })).toMatch(
      /defaultProject: no project "web" \(projects: api\)/,
    );
    expect(problem({ defaultProject: 'web' })).toMatch(
      /defaultProject: no project "web" \(no projects are configured\)/,
    );
    expect(
      problem({ projects: { api: { path: dir } }, channels: { telegram: { projects: { '-100:5': 'web' } } } }),
    ).toMatch(/channels\.telegram\.projects\["-100:5"\]: no project "web" \(projects: api\)/);
    expect(problem({ projects: { 'bad name': { path: dir } } })).toMatch(/projects\["bad name"\]: invalid key/);
    expect(problem({ projects: { api: { path: dir, model: 'x', color: 'red' } } })).toMatch(
      /projects\.api\.color: unknown key/,
    );
    const repo = gitRepo();
    expect(problem({ projects: { api: { path: repo, worktrees: { dir: path.join(repo, 'wt') } } } })).toMatch(
      /projects\.api\.worktrees\.dir: \S+ is inside the repository/,
    );
    expect(problem({ projects: { api: { path: repo, worktrees: { dir: path.join(dataDir, 'wt') } } } })).toMatch(
      /projects\.api\.worktrees\.dir: \S+ is inside Rudder's data dir/,
    );
    expect(() =>
      parseConfig({ projects: { api: { path: repo, worktrees: true } } }, 'config', { dataDir }),
    ).not.toThrow();
  });

  it('`rudder start` refuses a project inside its data dir with exit code 2, starting nothing', () => {
    const home = tempDir('phome');
    const cwd = tempDir('pcfg');
    fs.mkdirSync(path.join(home, 'work'));
    fs.writeFileSync(
      path.join(cwd, 'rudder.config.json'),
      JSON.stringify({ projects: { api: { path: path.join(home, 'work') } }, web: { port: 0 } }),
    );
    const r = spawnSync(process.execPath, [CLI, 'start'], {
      cwd,
      env: { ...process.env, RUDDER_HOME: home },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/projects\.api\.path: \S+work is inside Rudder's data dir/);
    expect(fs.existsSync(path.join(home, 'rudder.db'))).toBe(false);
  });
});
