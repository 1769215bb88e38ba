/**
 * The agent table (agents/table.ts): one entry per config backend, each making its own session from
 * a launch context; the binary lookup and `--version` health every entry shares, run on tiny real
 * executables; the doctor's binary lines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AcpSession } from '../../../src/agents/acp/acp-session.js';
import { AcpProcesses } from '../../../src/agents/acp/processes.js';
import { CLAUDE_BINARY } from '../../../src/agents/claude/binary.js';
import { claudeLaunch } from '../../../src/agents/claude/launch.js';
import { SpareProcess } from '../../../src/agents/claude/spare.js';
import { ClaudeStreamSession } from '../../../src/agents/claude/stream-session.js';
import { CODEX_BINARY } from '../../../src/agents/codex/binary.js';
import { CodexSession } from '../../../src/agents/codex/codex-session.js';
import { codexLaunch } from '../../../src/agents/codex/launch.js';
import { CodexServers } from '../../../src/agents/codex/server/servers.js';
import { findBinary } from '../../../src/agents/common/binary-lookup.js';
import { checkBinary } from '../../../src/agents/common/check-binary.js';
import { binaryLines } from '../../../src/agents/common/doctor.js';
import { AgentHealth } from '../../../src/agents/health.js';
import type { LaunchContext } from '../../../src/agents/launch.js';
import type { AgentSession } from '../../../src/agents/session.js';
import { AGENT_TABLE, binaries, entryOf, SESSION_KINDS, type SharedProcesses } from '../../../src/agents/table.js';
import { tmuxLaunch } from '../../../src/agents/tmux/tmux-launch.js';
import { ClaudeTmuxSession } from '../../../src/agents/tmux/tmux-session.js';
import { ACP_BACKENDS } from '../../../src/config/acp-schema.js';
import { parseConfig } from '../../../src/config/load.js';
import type { AgentConfig } from '../../../src/config/schema.js';
import { BACKENDS } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/ops/logger.js';
import { tempDir } from '../../support/claude-rig.js';

/** A tiny executable: prints `out` and exits with `code` (stderr `err`). */
function script(name: string, out: string, code = 0, err = ''): string {
  const file = path.join(tempDir('bin'), name);
  fs.writeFileSync(file, `#!/bin/sh\necho '${out}'\n${err ? `echo '${err}' >&2\n` : ''}exit ${code}\n`, {
    mode: 0o755,
  });
  return file;
}

const agentOf = (agent: Record<string, unknown> = {}): AgentConfig => parseConfig({ agent }).agent;

function context(agent: AgentConfig, extra: Partial<LaunchContext> = {}): LaunchContext {
  return {
    conversationId: 'web:one',
    cwd: tempDir('cwd'),
    agent,
    settings: { model: 'sonnet', permissionMode: 'relay', allowedTools: ['Read'], appendSystemPrompt: 'Be brief.' },
    sessionId: undefined,
    onSessionId: () => undefined,
    env: { PATH: '' },
    logger: silentLogger(),
    dataDir: tempDir('data'),
    tracker: { started: () => undefined, exited: () => undefined },
    markPrefix: 'rudder-test',
    ...extra,
  };
}

const servers = new CodexServers({ logger: silentLogger() });
const acpProcesses = new AcpProcesses({ logger: silentLogger() });
const pools: Record<string, unknown> = { codex: servers, acp: acpProcesses };
const shared: SharedProcesses = { spare: () => undefined, pool: (name) => pools[name] as never };
const made: AgentSession[] = [];
afterAll(async () => {
  await Promise.all(made.map((s) => s.stop('test over')));
  await servers.stopAll('test over');
  await acpProcesses.stopAll('test over');
});

describe('the agent table', () => {
  it('has an entry for every backend the config offers and every session kind, and none for another name', () => {
    expect(Object.keys(AGENT_TABLE).sort()).toEqual([...BACKENDS, ...SESSION_KINDS].sort());
    for (const b of BACKENDS) expect(entryOf(b)).toBe(AGENT_TABLE[b]);
    expect(entryOf('toString')).toBeUndefined();
    expect(entryOf('acp:nope')).toBeUndefined();
  });

  it("makes each backend's own session from a launch context, with the capabilities the entry states", () => {
    const agent = agentOf({ tmux: { socket: `rudder-table-test-${process.pid}` } });
    const kinds = {
      'claude-stream': ClaudeStreamSession,
      'claude-tmux': ClaudeTmuxSession,
      codex: CodexSession,
      ...Object.fromEntries(ACP_BACKENDS.map((b) => [b, AcpSession])),
    } as Record<(typeof BACKENDS)[number], unknown>;
    for (const b of BACKENDS) {
      const s = AGENT_TABLE[b].session(context(agent, { sessionId: `saved-${b}` }), shared);
      made.push(s);
      expect(s).toBeInstanceOf(kinds[b]);
      expect(s.backend).toBe(b);
      expect(s.capabilities).toEqual(AGENT_TABLE[b].capabilities);
      expect(s.conversationId).toBe('web:one');
      expect(s.sessionId()).toBe(`saved-${b}`);
      expect(s.state()).toBe('idle');
      expect(s.pid()).toBeUndefined();
    }
    // Only the TUI clears and switches models in place; nothing local is followed again after a restart.
    expect(AGENT_TABLE['claude-tmux'].capabilities).toMatchObject({ clearContext: true, setModel: true });
    for (const b of ['claude-stream', 'codex'] as const)
      expect(AGENT_TABLE[b].capabilities).toMatchObject({ clearContext: false, setModel: false });
    for (const b of BACKENDS) expect(AGENT_TABLE[b].capabilities.reattach).toBe(false);
  });

  it("builds Claude's launch from the context: settings, timeouts, environment, and the spare only when given", () => {
    const bin = script('claude', '2.1.332 (Claude Code)');
    const agent = agentOf({ claudeBin: bin, env: { EXTRA: 'x' }, turnTimeoutSeconds: 12, interruptGraceSeconds: 3 });
    const spare = new SpareProcess(silentLogger());
    const launch = claudeLaunch(context(agent), spare);
    expect(launch).toMatchObject({
      bin,
      model: 'sonnet',
      permissionMode: 'relay',
      allowedTools: ['Read'],
      appendSystemPrompt: 'Be brief.',
      autocompact: 'auto',
      turnTimeoutMs: 12_000,
      interruptGraceMs: 3_000,
      markPrefix: 'rudder-test',
      spare,
    });
    expect(launch.env.EXTRA).toBe('x');
    expect(claudeLaunch(context(agent), undefined).spare).toBeUndefined();
    // A binary not there now: the launch names the setting's value, and the spawn says what is missing.
    expect(claudeLaunch(context(agentOf({ claudeBin: '/no/such/claude' })), undefined).bin).toBe('/no/such/claude');
  });

  it("puts a TUI's long messages under the data dir, and finds codex at each server start", () => {
    const ctx = context(agentOf());
    expect(tmuxLaunch(ctx, undefined).tmux.messageDir.startsWith(path.join(ctx.dataDir, 'tmux-messages'))).toBe(true);
    const dir = tempDir('path');
    const launch = codexLaunch({ ...ctx, env: { PATH: dir } }, servers);
    expect(launch.servers).toBe(servers);
    expect(() => (launch.bin as () => string)()).not.toThrow(); // the pinned package's
    const codex = script('codex', 'codex-cli 0.171.0');
    fs.copyFileSync(codex, path.join(dir, 'codex'));
    expect((launch.bin as () => string)()).toBe(path.join(dir, 'codex'));
  });

  it('lists each agent binary once, in the order the backends name them', () => {
    expect(binaries(['codex', 'claude-tmux', 'claude-stream', 'codex']).map((b) => b.name)).toEqual([
      'codex',
      'claude',
    ]);
    expect(binaries(['nope'])).toEqual([]);
  });
});

describe('binary lookup and health', () => {
  it('takes the setting, the variable, PATH, then the pinned package; a setting that does not run is named', () => {
    const onPath = script('claude', 'p');
    const viaEnv = script('claude', 'e');
    const env = { RUDDER_CLAUDE_BIN: viaEnv, PATH: path.dirname(onPath) };
    expect(findBinary(CLAUDE_BINARY, onPath, env)).toEqual({ path: onPath, source: 'config' });
    expect(findBinary(CLAUDE_BINARY, undefined, env)).toEqual({ path: viaEnv, source: 'env' });
    expect(findBinary(CLAUDE_BINARY, undefined, { PATH: path.dirname(onPath) })).toEqual({
      path: onPath,
      source: 'path',
    });
    expect(findBinary(CLAUDE_BINARY, undefined, { PATH: '' })).toMatchObject({ source: 'bundled' });
    expect(findBinary(CODEX_BINARY, '/no/codex', env)).toEqual({
      problem: 'agent.codex.bin is set to /no/codex, which is not an executable file.',
      setting: 'agent.codex.bin',
    });
  });

  it('a binary that runs reports its version; one that fails says why with the fix', async () => {
    const good = await checkBinary(CLAUDE_BINARY, {
      configured: script('claude', '9.9.9 (Claude Code)'),
      env: {},
      agentEnv: {},
    });
    expect(good).toMatchObject({ agent: 'Claude', ok: true, source: 'config', version: '9.9.9 (Claude Code)' });
    const broken = script('claude', '', 3, 'claude: cannot execute');
    const bad = await checkBinary(CLAUDE_BINARY, { configured: broken, env: {}, agentEnv: {} });
    expect(bad).toMatchObject({ ok: false, version: null, fix: CLAUDE_BINARY.fix.broken });
    expect(bad.problem).toBe(
      `${broken} (from config) does not run: \`claude --version\` failed (claude: cannot execute).`,
    );
    const none = await checkBinary(CODEX_BINARY, { configured: '/no/codex', env: {}, agentEnv: {} });
    expect(none).toMatchObject({ agent: 'Codex', ok: false, source: null, fix: CODEX_BINARY.fix.missing });
  });

  it('checks only the agents in use, and says null for the others', async () => {
    const agent = agentOf({ claudeBin: script('claude', '9.9.9 (Claude Code)') });
    const health = new AgentHealth({ inUse: () => ['claude-tmux'], agent: () => agent, env: {} });
    const checks = await health.refresh();
    expect(checks.map((c) => [c.agent, c.version])).toEqual([['Claude', '9.9.9 (Claude Code)']]);
    expect(health.current()).toMatchObject({ claude: { ok: true }, codex: null });
  });

  it("doctor's binary lines: where it was found, its version, a version other than the pinned one named", async () => {
    const other = await checkBinary(CODEX_BINARY, {
      configured: script('codex', 'codex-cli 0.99.0'),
      env: {},
      agentEnv: {},
    });
    const lines = binaryLines(CODEX_BINARY, other);
    expect(lines.runs).toBe(true);
    expect(lines.checks.map((c) => [c.name, c.ok, c.detail])).toEqual([
      ['codex binary', true, `${other.path} (from config)`],
      ['codex version', true, 'codex-cli 0.99.0 (Rudder is built and tested against 0.171.0)'],
    ]);
    const missing = binaryLines(
      CLAUDE_BINARY,
      await checkBinary(CLAUDE_BINARY, { configured: '/no/claude', env: {}, agentEnv: {} }),
    );
    expect(missing.runs).toBe(false);
    expect(missing.checks).toEqual([
      expect.objectContaining({ name: 'claude binary', ok: false, fix: CLAUDE_BINARY.fix.missing }),
    ]);
  });
});
