/**
 * What an ACP backend runs: agent.acp.command, the preset's command on PATH, its installed package; Node scripts
 * under a Node they run on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledFile, isNodeScript, nodeFor, resolveAcpCommand } from '../../../../src/agents/acp/command.js';
import { PRESETS } from '../../../../src/agents/acp/presets.js';
import { tempDir } from '../../../support/claude-rig.js';

describe('the command', () => {
  it('finds the installed agents in node_modules, Node scripts under a Node they run on', () => {
    for (const name of ['claude', 'codex', 'gemini', 'copilot'] as const) {
      const file = bundledFile(PRESETS[name].bundled);
      expect(file, name).toBeDefined();
      expect(fs.existsSync(file!)).toBe(true);
    }
    const claude = resolveAcpCommand({}, PRESETS.claude, { PATH: '' });
    expect(claude.source).toBe('bundled');
    expect(claude.bin).toBe(nodeFor(22));
    expect(claude.args[0]).toMatch(/claude-agent-acp\/dist\/index\.js$/);
    expect(resolveAcpCommand({}, PRESETS.copilot, { PATH: '' }).args).toEqual(['--acp', '--stdio']);
  });

  it('runs a command on PATH that is a Node script (an npm bin) under the Node it needs', () => {
    const dir = tempDir('acp-path');
    const script = path.join(dir, 'agent.js');
    fs.writeFileSync(script, '#!/usr/bin/env node\n', { mode: 0o755 });
    fs.symlinkSync(script, path.join(dir, 'my-agent'));
    expect(isNodeScript(path.join(dir, 'my-agent'))).toBe(true);
    const cmd = resolveAcpCommand({ command: 'my-agent', args: ['--acp'], name: 'Mine' }, PRESETS.claude, {
      PATH: dir,
    });
    expect(cmd).toEqual({ bin: nodeFor(22), args: [script, '--acp'], source: 'config', label: 'Mine' });
    expect(resolveAcpCommand({ command: '/bin/true' }, undefined, { PATH: '' })).toMatchObject({
      bin: '/bin/true',
      args: [],
    });
  });
});
