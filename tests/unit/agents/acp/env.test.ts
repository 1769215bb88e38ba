/** An ACP agent's environment: the allow-list, the preset's login variables and quirks, agent.acp.env last. */
import { describe, expect, it } from 'vitest';
import { buildAcpEnv } from '../../../../src/agents/acp/env.js';
import { PRESETS } from '../../../../src/agents/acp/presets.js';

describe('buildAcpEnv', () => {
  const inherited = {
    PATH: '/bin',
    HOME: '/h',
    ANTHROPIC_API_KEY: 'a',
    GEMINI_API_KEY: 'g',
    GITHUB_TOKEN: 't',
    RUDDER_TOKEN: 'r',
  };

  it("passes an agent's own login variables and keeps a Claude key from the others", () => {
    const gemini = buildAcpEnv({ preset: PRESETS.gemini, inherited, root: false });
    expect(gemini).toMatchObject({ PATH: '/bin', HOME: '/h', GEMINI_API_KEY: 'g' });
    expect(gemini.ANTHROPIC_API_KEY).toBeUndefined();
    expect(gemini.GITHUB_TOKEN).toBeUndefined();
    expect(gemini.RUDDER_TOKEN).toBeUndefined();
    const claude = buildAcpEnv({ preset: PRESETS.claude, inherited, root: true });
    expect(claude).toMatchObject({ ANTHROPIC_API_KEY: 'a', IS_SANDBOX: '1' });
    expect(claude.GEMINI_API_KEY).toBeUndefined();
    expect(buildAcpEnv({ preset: PRESETS.claude, inherited, root: false }).IS_SANDBOX).toBeUndefined();
  });

  it('lets passEnv and agent.acp.env say otherwise', () => {
    const env = buildAcpEnv({ inherited, passVars: ['GITHUB_TOKEN'], extra: { ANTHROPIC_API_KEY: 'x', FOO: '1' } });
    expect(env).toMatchObject({ GITHUB_TOKEN: 't', ANTHROPIC_API_KEY: 'x', FOO: '1' });
  });
});
