/**
 * The ACP backends in the config: `acp` and `acp:<preset>`, agent-wide and per project, with agent.acp's keys;
 * errors name the key (agent.acp.command required by `acp`, and not shared by two different ACP agents).
 */
import { describe, expect, it } from 'vitest';
import { PRESET_NAMES } from '../../../src/agents/acp/presets.js';
import { ACP_BACKENDS } from '../../../src/config/acp-schema.js';
import { parseConfig } from '../../../src/config/load.js';
import { isRudderError } from '../../../src/errors.js';
import { tempDir } from '../../support/claude-rig.js';

function problem(value: unknown): string {
  try {
    parseConfig(value, 'test', { dataDir: tempDir('cfg-home') });
  } catch (err) {
    if (isRudderError(err, 'CONFIG_INVALID')) return err.message;
    throw err;
  }
  return '';
}

describe('ACP backends in the config', () => {
  it('offers acp and one backend per preset, agent-wide and per project', () => {
    expect(ACP_BACKENDS).toEqual(['acp', ...PRESET_NAMES.map((n) => `acp:${n}`)]);
    expect(parseConfig({ agent: { backend: 'acp:gemini' } }).agent).toMatchObject({
      backend: 'acp:gemini',
      acp: { env: {}, terminal: false },
    });
    const c = parseConfig({
      agent: { acp: { command: 'goose', args: ['acp'], env: { GOOSE_MODE: 'x' }, name: 'Goose', terminal: true } },
      projects: { a: { path: tempDir('p'), backend: 'acp' } },
    });
    expect(c.agent.acp).toEqual({
      command: 'goose',
      args: ['acp'],
      env: { GOOSE_MODE: 'x' },
      name: 'Goose',
      terminal: true,
    });
    expect(c.projects!.a!.backend).toBe('acp');
    expect(problem({ agent: { backend: 'acp:nope' } })).toMatch(/agent\.backend/);
    expect(problem({ agent: { acp: { comand: 'x' } } })).toMatch(/agent\.acp.*comand/);
    expect(problem({ agent: { acp: { env: { 'BAD-NAME': 'x' } } } })).toMatch(/agent\.acp\.env/);
  });

  it('backend "acp" needs agent.acp.command, and the error names the key and where acp is set', () => {
    expect(problem({ agent: { backend: 'acp' } })).toMatch(
      /agent\.acp\.command: is required: agent\.backend is "acp", which runs the command agent\.acp\.command names/,
    );
    expect(problem({ projects: { a: { path: tempDir('p'), backend: 'acp' } } })).toMatch(
      /agent\.acp\.command: is required: projects\.a\.backend is "acp"/,
    );
    expect(problem({ agent: { backend: 'acp', acp: { command: 'goose' } } })).toBe('');
  });

  it('agent.acp.command cannot be the command of two different ACP agents at once', () => {
    const two = {
      agent: { backend: 'acp:gemini', acp: { command: '/opt/gemini' } },
      projects: { a: { path: tempDir('p'), backend: 'acp:claude' } },
    };
    expect(problem(two)).toMatch(
      /agent\.acp\.command: replaces the command of every ACP backend.*acp:gemini and acp:claude/,
    );
    expect(problem({ ...two, agent: { backend: 'acp:gemini' } })).toBe('');
    expect(problem({ agent: { backend: 'acp:gemini', acp: { command: '/opt/gemini' } } })).toBe('');
  });
});
