/** The ACP backend's pure parts: the preset table, command lookup, environment, fs guard, options, outcomes. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AcpTurn } from '../../../src/agents/acp/acp-turn.js';
import { FsGuard } from '../../../src/agents/acp/client-fs.js';
import { bundledCommand, isNodeScript, nodeFor, resolveAcpCommand } from '../../../src/agents/acp/command.js';
import { buildAcpEnv } from '../../../src/agents/acp/env.js';
import { costOf, promptOutcome, requestError, usageOf } from '../../../src/agents/acp/outcome.js';
import { toOptions } from '../../../src/agents/acp/permissions.js';
import { PRESET_NAMES, PRESETS, presetOfBackend } from '../../../src/agents/acp/presets.js';
import { PERMISSION_MODES } from '../../../src/config/permission-modes.js';
import { tempDir } from '../../support/claude-rig.js';

describe('presets', () => {
  it('names each preset by its backend, and nothing else', () => {
    expect(presetOfBackend('acp:gemini')).toBe(PRESETS.gemini);
    expect(presetOfBackend('acp')).toBeUndefined();
    expect(presetOfBackend('acp:nope')).toBeUndefined();
    for (const name of PRESET_NAMES) expect(PRESETS[name].name).toBe(name);
  });

  it('maps only real permission modes, and only Claude steers', () => {
    for (const p of Object.values(PRESETS)) {
      for (const mode of Object.keys(p.modes)) expect(PERMISSION_MODES).toContain(mode);
      expect(p.modes.relay).toBeDefined();
      expect(p.steering).toBe(p.name === 'claude');
    }
  });

  it('finds the installed agents in node_modules, Node scripts under a Node they run on', () => {
    for (const name of ['claude', 'codex', 'gemini', 'copilot'] as const) {
      const cmd = bundledCommand(PRESETS[name].bundled);
      expect(cmd, name).toBeDefined();
      expect(fs.existsSync(cmd![0]!)).toBe(true);
    }
    const claude = resolveAcpCommand({}, PRESETS.claude, '');
    expect(claude.source).toBe('bundled');
    expect(claude.bin).toBe(nodeFor(22));
    expect(claude.args[0]).toMatch(/claude-agent-acp\/dist\/index\.js$/);
    expect(resolveAcpCommand({}, PRESETS.copilot, '').args).toEqual(['--acp', '--stdio']);
  });

  it('runs a command on PATH that is a Node script (an npm bin) under the Node it needs', () => {
    const dir = tempDir('acp-path');
    const script = path.join(dir, 'agent.js');
    fs.writeFileSync(script, '#!/usr/bin/env node\n', { mode: 0o755 });
    fs.symlinkSync(script, path.join(dir, 'my-agent'));
    expect(isNodeScript(path.join(dir, 'my-agent'))).toBe(true);
    const cmd = resolveAcpCommand({ command: 'my-agent', args: ['--acp'], name: 'Mine' }, PRESETS.claude, dir);
    expect(cmd).toEqual({ bin: nodeFor(22), args: [script, '--acp'], source: 'config', label: 'Mine' });
    expect(resolveAcpCommand({ command: '/bin/true' }, undefined, '')).toMatchObject({ bin: '/bin/true', args: [] });
  });
});

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

describe('FsGuard', () => {
  const setup = () => {
    const root = tempDir('acp-guard');
    const outside = tempDir('acp-guard-out');
    fs.writeFileSync(path.join(outside, 'secret'), 's');
    fs.writeFileSync(path.join(root, 'a.txt'), 'l1\nl2\nl3\nl4');
    fs.symlinkSync(outside, path.join(root, 'out'));
    fs.symlinkSync(path.join(root, 'a.txt'), path.join(root, 'in-link'));
    return { root, outside, guard: new FsGuard(root) };
  };

  it('reads inside, by lines too, and through a link that stays inside', () => {
    const { root, guard } = setup();
    expect(guard.read({ sessionId: 's', path: path.join(root, 'a.txt'), line: 2, limit: 2 })).toEqual({
      content: 'l2\nl3',
    });
    expect(guard.read({ sessionId: 's', path: path.join(root, 'in-link') }).content).toBe('l1\nl2\nl3\nl4');
  });

  it('refuses outside, relative, .. and symlinked paths, for reads and writes', () => {
    const { root, outside, guard } = setup();
    for (const p of [
      path.join(outside, 'secret'),
      path.join(root, '..', path.basename(outside), 'secret'),
      path.join(root, 'out', 'secret'),
      path.join(root, 'out', 'new', 'deeper.txt'),
      'a.txt',
    ]) {
      expect(() => guard.read({ sessionId: 's', path: p })).toThrow(/outside|absolute/);
      expect(() => guard.write({ sessionId: 's', path: p, content: 'x' })).toThrow(/outside|absolute/);
    }
    expect(fs.existsSync(path.join(outside, 'new'))).toBe(false);
    guard.write({ sessionId: 's', path: path.join(root, 'd', 'e.txt'), content: 'ok' });
    expect(fs.readFileSync(path.join(root, 'd', 'e.txt'), 'utf8')).toBe('ok');
  });
});

describe('permission options', () => {
  it("keeps the agent's ids and names, and gives Rudder's kind and an effect to the lasting ones", () => {
    expect(
      toOptions([
        { optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' },
        { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
        { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
        { optionId: 'never', name: 'Never', kind: 'reject_always' },
      ]),
    ).toEqual([
      { id: 'proceed_always', label: 'Allow for this session', kind: 'allow', effect: expect.any(String) },
      { id: 'proceed_once', label: 'Allow', kind: 'allow' },
      { id: 'cancel', label: 'Reject', kind: 'deny' },
      { id: 'never', label: 'Never', kind: 'deny', effect: expect.any(String) },
    ]);
  });
});

describe('outcome', () => {
  const ctx = { conversationId: 'c', sessionId: 's', label: 'Gemini' };

  it('reads usage from `usage` or from Gemini quota, and the cost as the difference of running totals', () => {
    expect(
      usageOf({ stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 2, cachedReadTokens: 1 } } as never),
    ).toEqual({
      inputTokens: 3,
      outputTokens: 2,
      cacheReadInputTokens: 1,
      cacheCreationInputTokens: 0,
    });
    const gemini = {
      stopReason: 'end_turn',
      _meta: { quota: { token_count: { input_tokens: 40, output_tokens: 7 } } },
    };
    expect(usageOf(gemini as never)).toMatchObject({ inputTokens: 40, outputTokens: 7 });
    const turn = new AcpTurn(['m']);
    expect(costOf(turn)).toBeUndefined();
    turn.costAtStart = 0.5;
    turn.mapper.costUsd = 0.75;
    expect(costOf(turn)).toBe(0.25);
    turn.mapper.costUsd = 0.1; // a new process counts from 0 again
    expect(costOf(turn)).toBe(0.1);
  });

  it('a cancel is a result when asked for or after a refusal, a failure otherwise; a timeout is a timeout', () => {
    const turn = new AcpTurn(['m']);
    expect(promptOutcome({ stopReason: 'cancelled' }, turn, ctx, false)).toMatchObject({
      error: { code: 'AGENT_TURN_FAILED' },
    });
    expect(promptOutcome({ stopReason: 'cancelled' }, turn, ctx, true)).toMatchObject({
      ok: { interrupted: false, terminalReason: 'cancelled' },
      notice: 'Gemini ended the turn when the permission was refused.',
    });
    turn.cancelRequested = true;
    expect(promptOutcome({ stopReason: 'cancelled' }, turn, ctx, false)).toMatchObject({ ok: { interrupted: true } });
    turn.timedOut = true;
    expect(promptOutcome({ stopReason: 'cancelled' }, turn, ctx, false)).toMatchObject({
      error: { code: 'AGENT_TURN_TIMEOUT', context: { unanswered: ['m'] } },
    });
  });

  it('types JSON-RPC errors by code and message', () => {
    const e = (code: number, message: string) => requestError({ code, message }, ctx, ['m']).code;
    expect(e(-32000, 'Authentication required')).toBe('ACP_AUTH_REQUIRED');
    expect(e(-32603, 'API Error: 429 rate_limit_error')).toBe('AGENT_RATE_LIMITED');
    expect(e(-32603, 'API Error: 500 Internal server error')).toBe('AGENT_API_ERROR');
    expect(e(-32603, 'Internal error')).toBe('AGENT_TURN_FAILED');
    expect(requestError(new Error('x'), ctx, ['m']).context.unanswered).toEqual(['m']);
  });
});
