/**
 * The ACP backends as the agent table holds them (agents/table.ts, agents/acp/launch.ts): a launch made from a
 * conversation's context, each preset's binary found in Rudder's own packages and its version read against the pin
 * (the real commands' own `--version`; codex-acp's package), capabilities before the agent ran.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AcpSession } from '../../../../src/agents/acp/acp-session.js';
import { acpLaunch } from '../../../../src/agents/acp/launch.js';
import { PRESETS } from '../../../../src/agents/acp/presets.js';
import { AcpProcesses } from '../../../../src/agents/acp/processes.js';
import { checkBinary } from '../../../../src/agents/common/check-binary.js';
import { binaryLines } from '../../../../src/agents/common/doctor.js';
import type { LaunchContext } from '../../../../src/agents/launch.js';
import { AGENT_TABLE, type SharedProcesses } from '../../../../src/agents/table.js';
import { parseConfig } from '../../../../src/config/load.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { cleanPath } from '../../../support/acp-rig.js';
import { tempDir } from '../../../support/claude-rig.js';

const processes = new AcpProcesses({ logger: silentLogger() });
const shared: SharedProcesses = { spare: () => undefined, pool: () => processes as never };
afterAll(() => processes.stopAll('test over'));

function context(agent: Record<string, unknown>, extra: Partial<LaunchContext> = {}): LaunchContext {
  return {
    conversationId: 'web:one',
    cwd: tempDir('acp-cwd'),
    agent: parseConfig({ agent }).agent,
    settings: { model: 'gemini-2.5-pro', permissionMode: 'relay' },
    sessionId: 'saved',
    onSessionId: () => undefined,
    env: { PATH: '', HOME: '/h', GEMINI_API_KEY: 'g', ANTHROPIC_API_KEY: 'a' },
    logger: silentLogger(),
    dataDir: tempDir('data'),
    tracker: { started: () => undefined, exited: () => undefined },
    markPrefix: 'rudder-test',
    ...extra,
  };
}

describe('the ACP entries of the agent table', () => {
  it("makes a launch from the context: the preset, the agent's variables and agent.acp's, the pool, the model", () => {
    const ctx = context({
      backend: 'acp:gemini',
      interruptGraceSeconds: 3,
      env: { SHARED: '1' },
      acp: { env: { GEMINI_MODEL: 'x' }, terminal: true },
    });
    const launch = acpLaunch(ctx, 'acp:gemini', PRESETS.gemini, processes);
    expect(launch).toMatchObject({
      backend: 'acp:gemini',
      label: 'Gemini',
      preset: PRESETS.gemini,
      permissionMode: 'relay',
      model: 'gemini-2.5-pro',
      terminal: true,
      interruptGraceMs: 3_000,
      sessionId: 'saved',
      processes,
    });
    expect(launch.env).toMatchObject({ HOME: '/h', GEMINI_API_KEY: 'g', GEMINI_MODEL: 'x', SHARED: '1' });
    expect(launch.env.ANTHROPIC_API_KEY).toBeUndefined();
    // Found when a process starts: the pinned package's script, under a Node it runs on.
    const command = (launch.command as () => { args: string[]; source: string })();
    expect(command).toMatchObject({ source: 'bundled' });
    expect(command.args).toEqual([expect.stringMatching(/gemini-cli\/bundle\/gemini\.js$/), '--acp']);
  });

  it('a custom command is named by agent.acp.name, and a missing one fails only when a process starts', () => {
    const entry = AGENT_TABLE.acp;
    const ctx = context({ backend: 'acp', acp: { command: '/no/agent', name: 'Goose' } });
    const s = entry.session(ctx, shared);
    expect(s).toBeInstanceOf(AcpSession);
    expect(s.backend).toBe('acp');
    expect(entry.label?.(ctx.agent)).toBe('Goose');
    const launch = acpLaunch(ctx, 'acp', undefined, processes);
    expect(() => (launch.command as () => unknown)()).toThrow(/agent\.acp\.command is set to \/no\/agent/);
    void s.stop('test over');
  });

  it('steers only where the preset expects it, before the agent ran', () => {
    expect(AGENT_TABLE['acp:claude'].capabilities.steer).toBe('native');
    for (const b of ['acp', 'acp:codex', 'acp:gemini', 'acp:qwen', 'acp:copilot'] as const)
      expect(AGENT_TABLE[b].capabilities).toEqual({
        steer: 'none',
        interrupt: true,
        resume: true,
        clearContext: false,
        setModel: false,
        reattach: false,
      });
  });

  it("finds each installed agent and reads its version against the preset's pin", { timeout: 240_000 }, async () => {
    const expected = {
      'acp:claude': ['claude-agent-acp', '0.101.0'],
      'acp:codex': ['codex-acp', '0.16.0'],
      'acp:gemini': ['gemini', '0.61.0'],
      'acp:copilot': ['copilot', 'GitHub Copilot CLI 1.0.102.'],
    } as const;
    for (const [backend, [name, version]] of Object.entries(expected)) {
      const { binary, env } = AGENT_TABLE[backend as keyof typeof expected];
      const c = await checkBinary(
        binary,
        { env: { PATH: cleanPath() }, agentEnv: env(undefined, { PATH: cleanPath() }) },
        60_000,
      );
      expect(c, backend).toMatchObject({ ok: true, source: 'bundled', version });
      const { checks } = binaryLines(binary, c);
      expect(checks.map((l) => [l.name, l.ok, l.detail])).toEqual([
        [`${name} binary`, true, `${c.path} (from bundled)`],
        [`${name} version`, true, version],
      ]);
    }
  });
});
