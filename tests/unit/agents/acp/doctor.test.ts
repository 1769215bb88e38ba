/**
 * `rudder doctor`'s checks of an ACP backend (agents/acp/doctor.ts), on a small ACP agent of our own
 * (tests/support/fake-acp-agent.mjs, the SDK's agent side in a real process) and on commands that are not
 * agents: the command found and its version, a real initialize, one short prompt, the login hint.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkAcp } from '../../../../src/agents/acp/doctor.js';
import { parseConfig } from '../../../../src/config/load.js';
import { cleanPath } from '../../../support/acp-rig.js';
import { tempDir } from '../../../support/claude-rig.js';

const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../support/fake-acp-agent.mjs');

/** An executable that runs the script (`exec`: the agent is the process doctor started). */
function command(body: string): string {
  const file = path.join(tempDir('acp-doctor-bin'), 'agent');
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

const run = (acp: Record<string, unknown>) =>
  checkAcp({
    backend: 'acp',
    agent: parseConfig({ agent: { backend: 'acp', acp } }).agent,
    env: { PATH: cleanPath() },
    timeoutMs: 20_000,
  });

const lines = (checks: Awaited<ReturnType<typeof run>>) => checks.map((c) => [c.name, c.ok, c.detail]);

describe('doctor for an ACP agent', () => {
  it('finds the command, reads its version, shakes hands and gets one short answer', async () => {
    const bin = command(`exec ${process.execPath} ${FAKE} "$@"`);
    expect(lines(await run({ command: bin }))).toEqual([
      ['acp binary', true, `${bin} (from config)`],
      ['acp version', true, 'fake-acp-agent 0.0.0'],
      [
        'acp initialize',
        true,
        'fake-acp-agent 0.0.0: protocol 1, cannot load a saved session (a restart starts anew), ' +
          'no messages mid-turn (they wait for the turn)',
      ],
      ['acp request', true, expect.stringMatching(/^the model answered in \d+ ms: "ok"$/)],
    ]);
  });

  it('says the agent needs a login, what it offers, and how to give it one', async () => {
    const bin = command(`exec ${process.execPath} ${FAKE} "$@"`);
    const checks = await run({ command: bin, env: { FAKE_ACP_AUTH: '1' } });
    expect(checks.at(-1)).toMatchObject({
      name: 'acp auth',
      ok: false,
      detail: 'the agent needs a login (it offers: an API key)',
      fix: expect.stringContaining('agent.acp.env'),
    });
  });

  it('names agent.acp.command when it is missing, and shows the stderr of one that exits at once', async () => {
    const missing = await run({ command: 'no-such-acp-agent' });
    expect(missing).toEqual([
      expect.objectContaining({
        name: 'acp binary',
        ok: false,
        detail:
          'agent.acp.command is set to no-such-acp-agent, which is neither an executable file nor a command on PATH.',
      }),
    ]);
    const exits = command('[ "$1" = --version ] && echo 1.2.3 && exit 0\necho "no ACP here" >&2\nexit 3');
    const checks = await run({ command: exits });
    expect(checks.at(-1)).toMatchObject({ name: 'acp initialize', ok: false });
    expect(checks.at(-1)!.detail).toMatch(/agent\.acp\.command: .*exited with status 3 before it answered initialize/);
    expect(checks.at(-1)!.detail).toContain('no ACP here');
  });
});
