import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { oneShotArgs, streamArgs } from '../../../src/agents/claude/args.js';
import { resolveClaudeBinary } from '../../../src/agents/claude/binary.js';
import { buildAgentEnv } from '../../../src/agents/claude/env.js';
import { isRudderError } from '../../../src/errors.js';
import { tempDir } from '../../support/claude-rig.js';

describe('agent environment', () => {
  const inherited = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    CLAUDECODE: '1',
    CLAUDE_CODE_ENTRYPOINT: 'cli',
    ANTHROPIC_BASE_URL: 'http://evil',
    ANTHROPIC_API_KEY: 'sk-1',
    CLAUDE_CODE_OAUTH_TOKEN: 'oat-1',
    ANTHROPIC_MODEL: 'x',
    RUDDER_STEERING: 'off',
  };

  it('passes only the auth variables of the CLAUDE/ANTHROPIC family by default', () => {
    const env = buildAgentEnv({ inherited });
    expect(env.CLAUDECODE).toBeUndefined();
    expect(env.CLAUDE_CODE_ENTRYPOINT).toBeUndefined();
    expect(env.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(env.ANTHROPIC_MODEL).toBeUndefined();
    expect(env.RUDDER_STEERING).toBeUndefined();
    expect(env.ANTHROPIC_API_KEY).toBe('sk-1');
    expect(env.CLAUDE_CODE_OAUTH_TOKEN).toBe('oat-1');
    expect(env.PATH).toBe('/usr/bin');
    expect(env.HOME).toBe('/home/u');
  });

  it('is an allow-list: the base set passes, every other inherited variable stays out unless passEnv names it', () => {
    const secrets = {
      GITHUB_TOKEN: 'ghp_1',
      OPENAI_API_KEY: 'sk-o',
      AWS_SECRET_ACCESS_KEY: 'aws',
      SSH_AUTH_SOCK: '/tmp/agent.sock',
      NODE_OPTIONS: '--require /x.js',
      RUDDER_TOKEN: 'rt',
    };
    const base = {
      USER: 'u',
      LOGNAME: 'u',
      SHELL: '/bin/bash',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      LC_CTYPE: 'C.UTF-8',
      TERM: 'xterm',
      TZ: 'UTC',
      TMPDIR: '/tmp/t',
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: 'localhost',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
    };
    const env = buildAgentEnv({ inherited: { ...inherited, ...secrets, ...base } });
    for (const k of Object.keys(secrets)) expect(env[k], k).toBeUndefined();
    expect(env).toMatchObject({
      ...base,
      PATH: '/usr/bin',
      HOME: '/home/u',
      ANTHROPIC_API_KEY: 'sk-1',
      DISABLE_AUTOUPDATER: '1',
    });
    expect(Object.keys(env).sort()).toEqual(
      [
        ...Object.keys(base),
        'PATH',
        'HOME',
        'ANTHROPIC_API_KEY',
        'CLAUDE_CODE_OAUTH_TOKEN',
        'DISABLE_AUTOUPDATER',
      ].sort(),
    );

    const named = buildAgentEnv({
      inherited: { ...inherited, ...secrets },
      passVars: ['GITHUB_TOKEN', 'SSH_AUTH_SOCK', 'RUDDER_TOKEN'],
    });
    expect(named.GITHUB_TOKEN).toBe('ghp_1');
    expect(named.SSH_AUTH_SOCK).toBe('/tmp/agent.sock');
    expect(named.OPENAI_API_KEY).toBeUndefined();
    // Rudder's own variables never pass from the environment; agent.env may still set anything.
    expect(named.RUDDER_TOKEN).toBeUndefined();
    expect(buildAgentEnv({ inherited: secrets, extra: { RUDDER_X: '1' } }).RUDDER_X).toBe('1');
  });

  it('passes what config allows, and sets configured variables last', () => {
    const env = buildAgentEnv({
      inherited,
      passVars: ['ANTHROPIC_MODEL'],
      extra: { ANTHROPIC_BASE_URL: 'http://proxy:8080', HOME: '/h2', DISABLE_AUTOUPDATER: '0' },
    });
    expect(env.ANTHROPIC_MODEL).toBe('x');
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.ANTHROPIC_BASE_URL).toBe('http://proxy:8080');
    expect(env.HOME).toBe('/h2');
    expect(env.DISABLE_AUTOUPDATER).toBe('0');
  });
});

describe('claude binary resolution', () => {
  const dir = tempDir('bin');
  const exe = (name: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, '#!/bin/sh\n', { mode: 0o755 });
    return p;
  };
  const onPath = exe('claude');
  const viaEnv = exe('claude-env');
  const viaConfig = exe('claude-config');

  it('prefers config, then RUDDER_CLAUDE_BIN, then PATH, then the bundled binary', () => {
    expect(resolveClaudeBinary(viaConfig, { RUDDER_CLAUDE_BIN: viaEnv, PATH: dir })).toEqual({
      path: viaConfig,
      source: 'config',
    });
    expect(resolveClaudeBinary(undefined, { RUDDER_CLAUDE_BIN: viaEnv, PATH: dir })).toEqual({
      path: viaEnv,
      source: 'env',
    });
    expect(resolveClaudeBinary(undefined, { PATH: `/nonexistent:${dir}` })).toEqual({ path: onPath, source: 'path' });
    const bundled = resolveClaudeBinary(undefined, { PATH: '/nonexistent' });
    expect(bundled.source).toBe('bundled');
    expect(bundled.path).toMatch(/@anthropic-ai\/claude-code\/bin\/claude\.exe$/);
  });

  it('names the setting that points nowhere', () => {
    try {
      resolveClaudeBinary('/no/such/claude', {});
      expect.unreachable();
    } catch (err) {
      expect(isRudderError(err, 'CLAUDE_BINARY_MISSING')).toBe(true);
      expect(String(err)).toContain('agent.claudeBin');
    }
    expect(() => resolveClaudeBinary(undefined, { RUDDER_CLAUDE_BIN: '/no/such' })).toThrow(/RUDDER_CLAUDE_BIN/);
  });
});

describe('CLI arguments', () => {
  it('builds the persistent command line with the mandatory flags', () => {
    const args = streamArgs({ permissionMode: 'relay', model: 'sonnet', appendSystemPrompt: 'Be brief.' }, 'sid-1');
    expect(args.slice(0, 8)).toEqual([
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--replay-user-messages',
      '--include-partial-messages',
    ]);
    expect(args).toEqual(
      expect.arrayContaining(['--resume', 'sid-1', '--model', 'sonnet', '--permission-prompt-tool', 'stdio']),
    );
    const prompt = args[args.indexOf('--append-system-prompt') + 1]!;
    expect(prompt).toContain('EXTERNAL_USER_MESSAGE');
    expect(prompt.endsWith('Be brief.')).toBe(true);
  });

  it('maps permission modes to the CLI flags', () => {
    expect(streamArgs({ permissionMode: 'bypassPermissions' }, undefined)).toContain('--dangerously-skip-permissions');
    const plan = streamArgs({ permissionMode: 'plan' }, undefined);
    expect(plan[plan.indexOf('--permission-mode') + 1]).toBe('plan');
    expect(streamArgs({ permissionMode: 'plan' }, undefined)).not.toContain('--resume');
  });

  it('keeps the one-shot prompt out of argv (it goes to stdin)', () => {
    const args = oneShotArgs({ permissionMode: 'manual' }, 'sid');
    expect(args.slice(0, 3)).toEqual(['-p', '--input-format', 'text']);
    expect(args).not.toContain('--');
  });
});
