/** The agent's environment (agents/claude/env.ts): an allow-list, cloud credentials behind their switch, passEnv. */
import { describe, expect, it } from 'vitest';
import { buildAgentEnv, passEnvWarning, unpassedClaudeVars } from '../../../../src/agents/claude/env.js';

describe('agent environment', () => {
  const inherited = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    CLAUDECODE: '1',
    CLAUDE_CODE_ENTRYPOINT: 'cli',
    CLAUDE_CODE_SESSION_ID: 'outer-session',
    ANTHROPIC_BASE_URL: 'http://gateway.internal:4000',
    ANTHROPIC_API_KEY: 'sk-1',
    CLAUDE_CODE_OAUTH_TOKEN: 'oat-1',
    ANTHROPIC_MODEL: 'x',
    RUDDER_STEERING: 'off',
  };

  it('passes what Claude Code reads for its endpoint, auth and models; not the markers of an outer session', () => {
    const env = buildAgentEnv({
      inherited: {
        ...inherited,
        ANTHROPIC_AUTH_TOKEN: 'bearer-1',
        ANTHROPIC_CUSTOM_HEADERS: 'X-Team: a',
        ANTHROPIC_SMALL_FAST_MODEL: 'haiku',
        ANTHROPIC_DEFAULT_SONNET_MODEL: 'sonnet-x',
        ANTHROPIC_DEFAULT_OPUS_MODEL_NAME: 'Opus X',
        CLAUDE_CODE_USE_VERTEX: '0',
        ANTHROPIC_VERTEX_PROJECT_ID: 'proj',
        CLOUD_ML_REGION: 'us-east5',
        VERTEX_REGION_CLAUDE_4_5_SONNET: 'europe-west1',
        HTTPS_PROXY: 'http://proxy:3128',
        SSL_CERT_FILE: '/etc/ca.pem',
        ANTHROPIC_LOG: 'debug',
        CLAUDE_CODE_MAX_RETRIES: '3',
      },
    });
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: 'http://gateway.internal:4000',
      ANTHROPIC_API_KEY: 'sk-1',
      CLAUDE_CODE_OAUTH_TOKEN: 'oat-1',
      ANTHROPIC_AUTH_TOKEN: 'bearer-1',
      ANTHROPIC_CUSTOM_HEADERS: 'X-Team: a',
      ANTHROPIC_MODEL: 'x',
      ANTHROPIC_SMALL_FAST_MODEL: 'haiku',
      ANTHROPIC_DEFAULT_SONNET_MODEL: 'sonnet-x',
      ANTHROPIC_DEFAULT_OPUS_MODEL_NAME: 'Opus X',
      CLAUDE_CODE_USE_VERTEX: '0',
      ANTHROPIC_VERTEX_PROJECT_ID: 'proj',
      CLOUD_ML_REGION: 'us-east5',
      VERTEX_REGION_CLAUDE_4_5_SONNET: 'europe-west1',
      HTTPS_PROXY: 'http://proxy:3128',
      SSL_CERT_FILE: '/etc/ca.pem',
      PATH: '/usr/bin',
      HOME: '/home/u',
    });
    for (const k of [
      'CLAUDECODE',
      'CLAUDE_CODE_ENTRYPOINT',
      'CLAUDE_CODE_SESSION_ID',
      'RUDDER_STEERING',
      'ANTHROPIC_LOG',
      'CLAUDE_CODE_MAX_RETRIES',
    ])
      expect(env[k], k).toBeUndefined();
  });

  it("passes a cloud's credentials only while the switch that needs them is on", () => {
    const cloud = {
      PATH: '/usr/bin',
      AWS_ACCESS_KEY_ID: 'AKIA1',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      AWS_REGION: 'eu-west-1',
      AWS_PROFILE: 'work',
      GOOGLE_APPLICATION_CREDENTIALS: '/k.json',
      GOOGLE_CLOUD_PROJECT: 'p',
      AZURE_CLIENT_SECRET: 'az',
    };
    const off = buildAgentEnv({ inherited: cloud });
    for (const k of Object.keys(cloud).filter((k) => k !== 'PATH')) expect(off[k], k).toBeUndefined();

    const bedrock = buildAgentEnv({ inherited: { ...cloud, CLAUDE_CODE_USE_BEDROCK: '1' } });
    expect(bedrock).toMatchObject({
      AWS_ACCESS_KEY_ID: 'AKIA1',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      AWS_PROFILE: 'work',
    });
    expect(bedrock.GOOGLE_APPLICATION_CREDENTIALS).toBeUndefined();
    expect(bedrock.AZURE_CLIENT_SECRET).toBeUndefined();

    // The switch may come from agent.env too; "0" and "false" are off, as the CLI reads them.
    const vertex = buildAgentEnv({ inherited: cloud, extra: { CLAUDE_CODE_USE_VERTEX: 'true' } });
    expect(vertex).toMatchObject({ GOOGLE_APPLICATION_CREDENTIALS: '/k.json', GOOGLE_CLOUD_PROJECT: 'p' });
    expect(vertex.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(buildAgentEnv({ inherited: { ...cloud, CLAUDE_CODE_USE_BEDROCK: 'false' } }).AWS_REGION).toBeUndefined();
    expect(buildAgentEnv({ inherited: { ...cloud, CLAUDE_CODE_USE_FOUNDRY: 'yes' } }).AZURE_CLIENT_SECRET).toBe('az');
  });

  it('is an allow-list: the default set passes; other inherited variables stay out unless passEnv names them', () => {
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
    expect(Object.keys(env).sort()).toEqual(
      [
        ...Object.keys(base),
        'PATH',
        'HOME',
        'ANTHROPIC_API_KEY',
        'ANTHROPIC_BASE_URL',
        'ANTHROPIC_MODEL',
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
    // Naming more keeps the default set: the auth variable is not lost by listing another one.
    expect(named.ANTHROPIC_API_KEY).toBe('sk-1');
    expect(named.OPENAI_API_KEY).toBeUndefined();
    // Rudder's own variables never pass from the environment; agent.env may still set anything.
    expect(named.RUDDER_TOKEN).toBeUndefined();
    expect(buildAgentEnv({ inherited: secrets, extra: { RUDDER_X: '1' } }).RUDDER_X).toBe('1');
  });

  it('passes what config allows, and sets configured variables last', () => {
    const env = buildAgentEnv({
      inherited: { ...inherited, CLAUDE_CODE_MAX_RETRIES: '2' },
      passVars: ['CLAUDE_CODE_MAX_RETRIES'],
      extra: { ANTHROPIC_BASE_URL: 'http://proxy:8080', HOME: '/h2', DISABLE_AUTOUPDATER: '0' },
    });
    expect(env.CLAUDE_CODE_MAX_RETRIES).toBe('2');
    expect(env.ANTHROPIC_BASE_URL).toBe('http://proxy:8080');
    expect(env.HOME).toBe('/h2');
    expect(env.DISABLE_AUTOUPDATER).toBe('0');
  });

  it('names the Claude variables the agent does not get, with the passEnv fix, once and without values', () => {
    const env = {
      ...inherited,
      ANTHROPIC_LOG: 'debug',
      CLAUDE_CODE_MAX_RETRIES: '3',
      CLAUDE_CONFIG_DIR: '/secret/place',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    expect(unpassedClaudeVars({ inherited: env, extra: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' } })).toEqual([
      'ANTHROPIC_LOG',
      'CLAUDE_CODE_MAX_RETRIES',
      'CLAUDE_CONFIG_DIR',
    ]);
    const line = passEnvWarning({ inherited: env, passVars: ['GITHUB_TOKEN'] })!;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('ANTHROPIC_LOG, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, CLAUDE_CODE_MAX_RETRIES');
    expect(line).toContain(
      '"passEnv": ["GITHUB_TOKEN","ANTHROPIC_LOG","CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",' +
        '"CLAUDE_CODE_MAX_RETRIES","CLAUDE_CONFIG_DIR"]',
    );
    expect(line).not.toContain('/secret/place');
    expect(line).not.toContain('debug');
    // Passed ones, and the markers of a Claude Code session Rudder runs in, are not warned about.
    expect(passEnvWarning({ inherited })).toBeUndefined();
    expect(passEnvWarning({ inherited: env, passVars: Object.keys(env) })).toBeUndefined();
  });
});
