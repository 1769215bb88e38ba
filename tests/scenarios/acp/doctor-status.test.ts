/**
 * What an operator sees of an ACP backend through the built `rudder` command: `rudder doctor` on acp:gemini (the
 * command found, its version, the handshake, one short answer from Gemini CLI against the mock, and Claude's checks
 * not required when no conversation runs on Claude); `rudder status` of a gateway on acp:gemini (the binary and its
 * version, the shared process and its conversations); and a command that does not exist, which fails the message
 * with a notice naming agent.acp.command instead of silence.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../../src/agents/acp/presets.js';
import { type AcpRig, cleanPath, startAcpRig } from '../../support/acp-rig.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { startInProcess } from '../../support/gateway-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let rig: AcpRig;
beforeAll(async () => {
  rig = await startAcpRig('gemini');
});
afterAll(async () => {
  await rig?.close();
});

const geminiAgent = () => ({
  backend: 'acp:gemini',
  cwd: rig.cwd,
  acp: { env: { ...rig.agentEnv, PATH: cleanPath() } },
});

describe('rudder doctor on acp:gemini', () => {
  it('finds the command and version, shakes hands, gets one answer; passes without a Claude login', async () => {
    const cwd = tempDir('acp-doctor');
    fs.writeFileSync(path.join(cwd, 'rudder.config.json'), JSON.stringify({ agent: geminiAgent() }));
    const r = await runCli(['doctor'], {
      cwd,
      env: cleanEnv({ PATH: cleanPath(), HOME: tempDir('acp-doctor-home'), RUDDER_HOME: tempDir('acp-doctor-data') }),
      timeoutMs: 120_000,
    });
    expect(r.stdout).toMatch(/^✔ gemini binary: \S+gemini-cli\/bundle\/gemini\.js \(from bundled\)$/m);
    expect(r.stdout).toContain(`✔ gemini version: ${PRESETS.gemini.pinned}`);
    expect(r.stdout).toMatch(/^✔ gemini initialize: gemini-cli [\d.]+: protocol 1, loads saved sessions, no messages/m);
    expect(r.stdout).toMatch(/^✔ gemini request: the model answered in \d+ ms/m);
    // Claude is no conversation's agent here: its failing login is shown, not required.
    expect(r.stdout).toMatch(/^! auth: /m);
    expect(r.stdout).toContain('All required checks passed.');
    expect(r.status).toBe(0);
  });
});

describe('rudder status of a gateway on acp:gemini', () => {
  it("shows the agent's binary and version, and its shared process with the conversations it serves", async () => {
    const gw = await startInProcess({ agent: { ...geminiAgent(), permissionMode: 'bypassPermissions' } });
    try {
      const w = gw.watch('st');
      await w.ready;
      const m = await gw.post('st', 'hello tag:st1');
      await w.waitReply(m.messageId, 'reply', 90_000);
      // The binary's version is read in the background at start (seconds on a busy machine): wait until it is known.
      const binaries = async () =>
        ((await (await gw.api('GET', '/api/status')).json()) as { agent: { binaries: Record<string, unknown> } }).agent
          .binaries;
      await waitUntil(async () => (await binaries()).gemini !== undefined, 90_000);
      const env = cleanEnv({ RUDDER_HOME: gw.home, RUDDER_URL: gw.ep.base });
      const s = await runCli(['status'], { cwd: gw.cwd, env });
      expect(s.stdout).toMatch(
        new RegExp(`^Gemini: ${PRESETS.gemini.pinned} at \\S+gemini\\S* \\(from \\w+\\); backend acp:gemini$`, 'm'),
      );
      expect(s.stdout).toMatch(/^ {2}Gemini process \d+: 1 conversation\(s\), 1 session\(s\)/m);
      const json = JSON.parse((await runCli(['status', '--json'], { cwd: gw.cwd, env })).stdout);
      expect(json.agent.binaries.gemini).toMatchObject({ agent: 'Gemini', ok: true, version: PRESETS.gemini.pinned });
      expect(json.agent.shared).toEqual([expect.objectContaining({ agent: 'Gemini', conversations: 1, sessions: 1 })]);
    } finally {
      await gw.stop();
    }
  });
});

describe('an ACP command that does not exist', () => {
  it('fails the message with a notice naming agent.acp.command, and the next one too', async () => {
    const gw = await startInProcess({
      agent: { backend: 'acp', cwd: tempDir('acp-missing'), acp: { command: 'no-such-acp-agent' } },
    });
    try {
      const w = gw.watch('nobin');
      await w.ready;
      for (const text of ['hello tag:nb1', 'again tag:nb2']) {
        const m = await gw.post('nobin', text);
        const n = await w.wait(
          'reply',
          (d) => (d.messageIds as string[]).includes(m.messageId) && /agent\.acp\.command/.test(`${d.text}`),
        );
        expect(n.data.text).toContain('agent.acp.command is set to no-such-acp-agent');
        const err = w.of('error', (d) => (d.messageIds as string[]).includes(m.messageId));
        expect(err.map((e) => e.data.code)).toEqual(['ACP_COMMAND_MISSING']);
        expect(gw.gw.services.store.message(m.messageId)!.state).toBe('failed');
      }
    } finally {
      await gw.stop();
    }
  });
});
