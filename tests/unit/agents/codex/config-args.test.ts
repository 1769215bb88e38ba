/** agent.codex and backend "codex" in the config file, as parseConfig reads them. */
import { describe, expect, it } from 'vitest';
import { configArgs } from '../../../../src/agents/codex/config-args.js';
import { parseConfig } from '../../../../src/config/load.js';
import { isRudderError } from '../../../../src/errors.js';
import { projectAgent, projectSet } from '../../../../src/projects/projects.js';
import { tempDir } from '../../../support/claude-rig.js';

const bad = (value: unknown): string => {
  try {
    parseConfig(value, 'test', { dataDir: tempDir('data') });
  } catch (err) {
    if (isRudderError(err, 'CONFIG_INVALID')) return err.message;
    throw err;
  }
  throw new Error('the config was accepted');
};

describe('codex config', () => {
  it('takes backend codex, agent.codex.bin and agent.codex.config, and passes the config as -c overrides', () => {
    const cfg = parseConfig(
      {
        agent: {
          backend: 'codex',
          codex: {
            bin: '/opt/codex',
            config: {
              model_provider: 'mock',
              'model_providers.mock.base_url': 'http://127.0.0.1:9/v1',
              'model_providers.mock.wire_api': 'responses',
              'model_providers.mock.request_max_retries': 0,
            },
          },
        },
      },
      'test',
      { dataDir: tempDir('data') },
    );
    expect(cfg.agent.backend).toBe('codex');
    expect(cfg.agent.codex.bin).toBe('/opt/codex');
    expect(configArgs(cfg.agent.codex.config)).toEqual([
      '-c',
      'model_provider="mock"',
      '-c',
      'model_providers.mock.base_url="http://127.0.0.1:9/v1"',
      '-c',
      'model_providers.mock.wire_api="responses"',
      '-c',
      'model_providers.mock.request_max_retries=0',
    ]);
    expect(parseConfig({}, 'test', { dataDir: tempDir('data') }).agent.codex).toEqual({ config: {} });
  });

  it('lets a project choose codex', () => {
    const dir = tempDir('proj');
    const cfg = parseConfig({ projects: { api: { path: dir, backend: 'codex' } } }, 'test', {
      dataDir: tempDir('data'),
    });
    const p = projectSet(cfg).projects[0]!;
    expect(projectAgent(cfg.agent, p).backend).toBe('codex');
  });

  it('names what is wrong: a key that is not dotted, a null, a secret on the command line, an unknown key', () => {
    expect(bad({ agent: { codex: { config: { 'a b': 1 } } } })).toMatch(/agent\.codex\.config/);
    expect(bad({ agent: { codex: { config: { model: null } } } })).toMatch(/agent\.codex\.config\.model/);
    expect(bad({ agent: { codex: { config: { 'model_providers.x.experimental_bearer_token': 't' } } } })).toMatch(
      /secret on codex's command line/,
    );
    expect(bad({ agent: { codex: { binary: '/x' } } })).toMatch(/binary/);
    expect(bad({ agent: { backend: 'codex-cli' } })).toMatch(/agent\.backend/);
  });
});
