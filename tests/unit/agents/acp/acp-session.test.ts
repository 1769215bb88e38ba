/**
 * AcpSession against a tiny ACP agent of our own (tests/support/fake-acp-agent.mjs, the SDK's agent
 * side in a real process), for what the real agents never do offline: ask for files, end a prompt
 * with refusal or max_tokens, send malformed updates, offer no session/load; and against commands
 * that are not agents at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type AcpCommand, resolveAcpCommand } from '../../../../src/agents/acp/command.js';
import type { AcpLaunch } from '../../../../src/agents/acp/launch.js';
import { PRESETS } from '../../../../src/agents/acp/presets.js';
import type { TurnEvent } from '../../../../src/agents/session.js';
import { isRudderError, type RudderError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { cleanPath, trackAcp } from '../../../support/acp-rig.js';
import { tempDir, untilEvent, waitUntil } from '../../../support/claude-rig.js';

const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../support/fake-acp-agent.mjs');
const t = trackAcp();

function fakeLaunch(over: Partial<AcpLaunch> = {}): AcpLaunch & { log: string } {
  const cwd = tempDir('acp-fake-cwd');
  const log = path.join(tempDir('acp-fake-log'), 'log.jsonl');
  const command: AcpCommand = { bin: process.execPath, args: [FAKE], source: 'config', label: 'Fake agent' };
  return {
    conversationId: 'acp-fake',
    cwd,
    command,
    label: 'Fake agent',
    env: { PATH: cleanPath(), FAKE_ACP_LOG: log },
    logger: silentLogger(),
    permissionMode: 'relay',
    killGraceMs: 500,
    log,
    ...over,
  };
}

async function say(launch: AcpLaunch, text: string) {
  const s = t.session(launch);
  const turn = s.startTurn({ inputs: [{ id: 'f1', text }] });
  const events: TurnEvent[] = [];
  turn.onEvent((e) => events.push(e));
  return { s, turn, events, result: await turn.result };
}

describe('fs/* served inside the conversation directory only', () => {
  it('reads and writes a file inside', async () => {
    const launch = fakeLaunch();
    fs.writeFileSync(path.join(launch.cwd, 'notes.txt'), 'inside text');
    const r = await say(launch, `[[read:${path.join(launch.cwd, 'notes.txt')}]]`);
    expect(r.result.text).toBe('read: inside text');
    const w = await say(launch, `[[write:${path.join(launch.cwd, 'sub', 'new.txt')}:written by the agent]]`);
    expect(w.result.text).toBe('wrote');
    expect(fs.readFileSync(path.join(launch.cwd, 'sub', 'new.txt'), 'utf8')).toBe('written by the agent');
  });

  it('refuses a path outside, through .. or through a symlink, with an error the agent reads', async () => {
    const launch = fakeLaunch();
    const outside = path.join(tempDir('acp-outside'), 'secret.txt');
    fs.writeFileSync(outside, 'secret');
    fs.symlinkSync(path.dirname(outside), path.join(launch.cwd, 'link'));
    for (const p of [
      outside,
      path.join(launch.cwd, '..', path.basename(launch.cwd), '..', 'x'),
      `${launch.cwd}/link/secret.txt`,
    ]) {
      const r = await say(launch, `[[read:${p}]]`);
      expect(r.result.text).toMatch(/^refused: .*outside this conversation's directory/);
      expect(r.result.text).not.toContain('secret\n');
    }
    const w = await say(launch, `[[write:${launch.cwd}/link/planted.txt:x]]`);
    expect(w.result.text).toMatch(/^refused: /);
    expect(fs.existsSync(path.join(path.dirname(outside), 'planted.txt'))).toBe(false);
  });
});

describe('terminal/* served only when turned on', () => {
  it('is declared unsupported by default', async () => {
    expect((await say(fakeLaunch(), '[[term:echo hi]]')).result.text).toBe('no terminal');
  });

  it('runs a command in the conversation directory, and refuses a directory outside', async () => {
    const launch = fakeLaunch({ terminal: true });
    const r = await say(launch, '[[term:echo out; echo err >&2; exit 4]]');
    // stdout and stderr are two pipes: their order is not fixed.
    expect(r.result.text).toMatch(/^term: (out\nerr|err\nout) exit 4$/);
    const here = await say(launch, `[[termat:${launch.cwd}]]`);
    expect(here.result.text).toBe(`term: ${fs.realpathSync(launch.cwd)} exit 0`);
    const there = await say(launch, `[[termat:${tempDir('acp-term-out')}]]`);
    expect(there.result.text).toMatch(/^refused: .*outside this conversation's directory/);
  });
});

describe('stop reasons', () => {
  it.each([
    ['refusal', /refused to go on/],
    ['max_tokens', /ran out of output tokens/],
    ['max_turn_requests', /limit of model requests/],
  ])('%s ends the turn with a result marked as an error, said plainly', async (reason, words) => {
    const r = await say(fakeLaunch(), `[[stop:${reason}]]`);
    expect(r.result).toMatchObject({ isError: true, terminalReason: reason, interrupted: false });
    expect(r.events).toContainEqual({ type: 'status', message: expect.stringMatching(words), notify: true });
  });

  it('a cancel the agent decides on its own is a failure naming the inputs', async () => {
    const launch = fakeLaunch();
    const s = t.session(launch);
    const err = await s
      .startTurn({ inputs: [{ id: 'c1', text: '[[stop:cancelled]]' }] })
      .result.catch((e: unknown) => e);
    expect(isRudderError(err, 'AGENT_TURN_FAILED')).toBe(true);
    expect((err as RudderError).context.unanswered).toEqual(['c1']);
  });
});

describe('the agent side, odd cases', () => {
  it('ignores malformed updates and still answers', async () => {
    const r = await say(fakeLaunch(), '[[bad]] tag:b1');
    expect(r.result.text).toBe('ok');
    expect(r.events.filter((e) => e.type === 'tool-use')).toEqual([]);
  });

  it('answers a permission request cancelled when the turn is stopped while it waits', async () => {
    const launch = fakeLaunch();
    const s = t.session(launch);
    const turn = s.startTurn({ inputs: [{ id: 'p1', text: '[[ask]]' }] });
    const ask = await untilEvent(turn, 'permission');
    expect(ask.request.options).toEqual([
      { id: 'yes', label: 'Allow', kind: 'allow' },
      { id: 'always', label: 'Always allow', kind: 'allow', effect: expect.any(String) },
      { id: 'no', label: 'Reject', kind: 'deny' },
    ]);
    expect(ask.request.toolName).toBe('Bash');
    expect(ask.request.input).toMatchObject({ command: 'rm -rf build' });
    await s.interrupt();
    expect((await turn.result).interrupted).toBe(true);
    expect(fs.readFileSync(launch.log, 'utf8').trim()).toBe('{"outcome":"cancelled"}');
    expect(s.answerPermission(ask.request.requestId, { optionId: 'yes' })).toBe(false);
  });

  it('an agent that does not end a stopped turn within the grace is stopped; the next turn runs', async () => {
    const s = t.session(fakeLaunch({ interruptGraceMs: 500 }));
    const turn = s.startTurn({ inputs: [{ id: 'h1', text: '[[hang]]' }] });
    const events: TurnEvent[] = [];
    turn.onEvent((e) => events.push(e));
    await waitUntil(() => s.sessionId() !== undefined && s.pid() !== undefined, 10_000);
    const pid = s.pid()!;
    await new Promise((r) => setTimeout(r, 200));
    await s.interrupt();
    const r = await turn.result;
    expect(r.interrupted).toBe(true);
    expect(() => process.kill(pid, 0)).toThrow();
    const next = s.startTurn({ inputs: [{ id: 'h2', text: 'again' }] });
    const told: TurnEvent[] = [];
    next.onEvent((e) => told.push(e));
    expect((await next.result).text).toBe('ok');
    expect(s.pid()).not.toBe(pid);
    // This agent cannot load the session in the new process: the person is told.
    expect(told).toContainEqual(
      expect.objectContaining({ type: 'status', message: expect.stringMatching(/earlier turns/) }),
    );
  });

  it('starts a new session, and says so, when the agent cannot load the saved one', async () => {
    const r = await say(fakeLaunch({ sessionId: 'saved-elsewhere' }), 'hello');
    expect(r.events).toContainEqual({
      type: 'status',
      message: 'Fake agent cannot load a saved session: it starts without the earlier turns.',
      notify: true,
    });
    expect(r.s.sessionId()).toBe('fake-1');
  });
});

describe('commands that are not agents', () => {
  it('a command that does not exist is refused naming agent.acp.command', () => {
    const err = (() => {
      try {
        resolveAcpCommand({ command: 'no-such-acp-agent' }, undefined, { PATH: cleanPath() });
      } catch (e) {
        return e;
      }
    })();
    expect(isRudderError(err, 'ACP_COMMAND_MISSING')).toBe(true);
    expect((err as Error).message).toContain(
      'agent.acp.command is set to no-such-acp-agent, which is neither an executable file nor a command on PATH.',
    );
    expect(() => resolveAcpCommand({}, PRESETS.qwen, { PATH: '' })).toThrow(
      /npm install -g @qwen-code\/qwen-code@0.24.4/,
    );
  });

  it('a command that exits at once fails the turn with its stderr, naming agent.acp.command', async () => {
    const command: AcpCommand = {
      bin: '/bin/sh',
      args: ['-c', 'echo "unknown option --acp" >&2; exit 3'],
      source: 'config',
      label: 'Broken agent',
    };
    const s = t.session(fakeLaunch({ command }));
    const err = await s.startTurn({ inputs: [{ id: 'x1', text: 'hi' }] }).result.catch((e: unknown) => e);
    expect(isRudderError(err, 'ACP_START_FAILED')).toBe(true);
    expect((err as Error).message).toMatch(/agent\.acp\.command: \/bin\/sh .* exited with status 3/);
    expect((err as Error).message).toContain('unknown option --acp');
    expect((err as RudderError).context.unanswered).toEqual(['x1']);
  });

  it('a command that never answers initialize is stopped after the start-up limit', async () => {
    const command: AcpCommand = { bin: '/bin/sleep', args: ['30'], source: 'config', label: 'Silent agent' };
    const s = t.session(fakeLaunch({ command, initTimeoutMs: 500 }));
    const err = await s.startTurn({ inputs: [{ id: 'x2', text: 'hi' }] }).result.catch((e: unknown) => e);
    expect(isRudderError(err, 'ACP_START_FAILED')).toBe(true);
    await waitUntil(() => s.pid() === undefined, 10_000);
  });
});
