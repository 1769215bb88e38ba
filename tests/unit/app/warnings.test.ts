/**
 * The start's warnings: a config an agent can edit only when an agent of this machine works in a directory
 * that holds it (with `projects` set, the directory Rudder starts in is no agent's), and claude with no key
 * and no login.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { authWarning, configWarnings } from '../../../src/app/warnings.js';
import { parseConfig } from '../../../src/config/load.js';
import { tempDir } from '../../support/claude-rig.js';

const EDITABLE = 'so the agent can edit it';

function loaded(startDir: string, value: Record<string, unknown>) {
  const file = path.join(startDir, 'rudder.config.json');
  fs.writeFileSync(file, JSON.stringify(value));
  return { config: parseConfig(value), file };
}

describe('the warning about a config the agent can edit', () => {
  it('is not given when projects are set and none works where the config is', () => {
    const start = tempDir('start');
    const work = tempDir('work');
    const cfg = loaded(start, { projects: { app: { path: work } } });
    expect(configWarnings(cfg, start).join('\n')).not.toContain(EDITABLE);
  });

  it('names the project whose directory holds the config, and a project on a node never does', () => {
    const start = tempDir('start');
    const cfg = loaded(start, { projects: { app: { path: tempDir('work') }, here: { path: start } } });
    const said = configWarnings(cfg, start).join('\n');
    expect(said).toContain(EDITABLE);
    expect(said).toContain(`project here's directory (${start})`);
    const remote = loaded(start, { nodes: {}, projects: { far: { node: 'alpha' } } });
    expect(configWarnings(remote, start).join('\n')).not.toContain(EDITABLE);
  });

  it("is given without projects when the agent's working directory holds the config", () => {
    const start = tempDir('start');
    expect(configWarnings(loaded(start, {}), start).join('\n')).toContain(
      `inside the agent's working directory (${start})`,
    );
  });
});

describe('the warning about claude without credentials', () => {
  const noKeys = { PATH: '/usr/bin:/bin' };
  it('is given when neither the environment nor the agent HOME holds a key or a login', () => {
    const cfg = parseConfig({ agent: { env: { HOME: tempDir('empty') } } });
    expect(authWarning(cfg, noKeys)).toContain('claude has no credentials');
  });

  it('is not given with a key in agent.env, nor when only codex runs here', () => {
    const keyed = parseConfig({ agent: { env: { HOME: tempDir('empty'), ANTHROPIC_API_KEY: 'sk-ant-x' } } });
    expect(authWarning(keyed, noKeys)).toBeUndefined();
    const codex = parseConfig({ agent: { backend: 'codex', env: { HOME: tempDir('empty') } } });
    expect(authWarning(codex, noKeys)).toBeUndefined();
  });
});
