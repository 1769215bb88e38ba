import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chunkUtf8,
  escapeTmuxArg,
  hasTmux,
  howItExited,
  stripControlSequences,
  Tmux,
} from '../../../../../src/agents/tmux/pane/tmux.js';
import { waitUntil } from '../../../../support/claude-rig.js';
import { makeRecorder, type Recorder } from '../../../../support/pane-recorder.js';

const tmuxAvailable = await hasTmux();
const ESC = '\x1b';
const PASTE_START = `${ESC}[200~`;
const PASTE_END = `${ESC}[201~`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Tmux on a private socket', () => {
  const tmux = new Tmux({ name: `rudder-test-${process.pid}-${Date.now().toString(36)}` });
  const baseEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: os.tmpdir(),
    TERM: 'tmux-256color',
    LANG: 'C.UTF-8',
  };
  const recorders: Recorder[] = [];
  let counter = 0;
  const sessionName = (tag: string) => `t${process.pid}-${tag}-${counter++}`;

  async function waitForText(name: string, needle: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let text = '';
    while (Date.now() < deadline) {
      text = await tmux.capturePane(name);
      if (text.includes(needle)) return text;
      await sleep(50);
    }
    throw new Error(`pane ${name} never showed ${JSON.stringify(needle)}; last:\n${text}`);
  }

  async function startRecorder(mode: 'bracketed' | 'plain' = 'bracketed'): Promise<{ name: string; rec: Recorder }> {
    const rec = makeRecorder(mode);
    recorders.push(rec);
    const name = sessionName('rec');
    await tmux.newSession({ name, cwd: os.tmpdir(), width: 120, height: 30, env: baseEnv, argv: rec.argv });
    await waitForText(name, 'RECORDER READY');
    return { name, rec };
  }

  beforeAll(async () => {
    if (!tmuxAvailable) throw new Error('tmux is not installed: apt-get install -y tmux (.ci/run does this).');
    expect(await tmux.listSessions()).toEqual([]);
  });

  afterEach(() => {
    for (const rec of recorders.splice(0)) rec.cleanup();
  });

  afterAll(async () => {
    await tmux.killServer();
    expect(fs.existsSync(tmux.socketPath())).toBe(false);
  });

  it('targets sessions by exact name, never by prefix', async () => {
    const long = `${sessionName('exact')}-abcdef`;
    const short = long.slice(0, -3);
    await tmux.newSession({ name: long, cwd: os.tmpdir(), width: 80, height: 24, env: baseEnv, argv: ['sleep', '30'] });
    expect(await tmux.hasSession(long)).toBe(true);
    expect(await tmux.hasSession(short)).toBe(false);
    await expect(tmux.capturePane(short)).rejects.toMatchObject({ code: 'TMUX_FAILED' });
    await expect(tmux.paneInfo(short)).rejects.toMatchObject({ code: 'TMUX_FAILED' });
    expect(await tmux.killSession(short)).toBe(false);
    expect(await tmux.hasSession(long)).toBe(true);
    expect(await tmux.killSession(long)).toBe(true);
    expect(await tmux.hasSession(long)).toBe(false);
  });

  it('gives the program exactly the environment it was given, with a literal final semicolon', async () => {
    process.env.RUDDER_TMUX_LEAK_CHECK = 'leaked';
    try {
      const name = sessionName('env');
      const env = { ...baseEnv, RUDDER_VALUE: 'a b;' };
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell expands these, with defaults
      const argv = ['sh', '-c', 'echo "[$RUDDER_VALUE][${RUDDER_TMUX_LEAK_CHECK:-unset}][${TMUX:-no-tmux}]"; sleep 30'];
      await tmux.newSession({ name, cwd: os.tmpdir(), width: 80, height: 24, env, argv });
      const text = await waitForText(name, '][');
      expect(text).toContain('[a b;][unset][no-tmux]');
      await tmux.killSession(name);
    } finally {
      delete process.env.RUDDER_TMUX_LEAK_CHECK;
    }
  });

  it('keeps environment values and typed text out of errors', async () => {
    const name = sessionName('secret');
    const env = { ...baseEnv, ANTHROPIC_API_KEY: 'sk-secret-value-123' };
    await tmux.newSession({ name, cwd: os.tmpdir(), width: 80, height: 24, env, argv: ['sleep', '30'] });
    const err = await tmux
      .newSession({ name, cwd: os.tmpdir(), width: 80, height: 24, env, argv: ['sleep', '30'] })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'TMUX_FAILED' });
    const everything =
      JSON.stringify(err) +
      String(err) +
      String((err as Error).cause) +
      JSON.stringify((err as { context: unknown }).context);
    expect(everything).toContain('duplicate session');
    expect(everything).not.toContain('sk-secret-value-123');
    // The key reached the program, but never a command line (ps, or tmux's pane_start_command).
    const started = await promisify(execFile)('tmux', [
      '-L',
      (tmux.socket as { name: string }).name,
      'display-message',
      '-p',
      '-t',
      `=${name}:`,
      '#{pane_start_command}',
    ]);
    expect(started.stdout).toContain('rudder-env');
    expect(started.stdout).not.toContain('sk-secret-value-123');
    const pid = (await tmux.paneInfo(name)).pid;
    const cmdline = () => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    expect(cmdline()).not.toContain('sk-secret-value-123');
    // The pane's shell reads the environment file, then execs the program: on a busy machine that takes a moment.
    await waitUntil(() => cmdline().startsWith('sleep\0'));
    expect(cmdline()).not.toContain('sk-secret-value-123');
    expect(fs.readFileSync(`/proc/${pid}/environ`, 'utf8')).toContain('ANTHROPIC_API_KEY=sk-secret-value-123');
    const typed = await tmux.sendKeysLiteral(`${name}-missing`, 'private words').catch((e: unknown) => e);
    expect(JSON.stringify((typed as { context: unknown }).context)).not.toContain('private words');
    await tmux.killSession(name);
  });

  it('refuses names and environments that would not reach tmux intact', async () => {
    const ok = { cwd: os.tmpdir(), width: 80, height: 24, env: baseEnv, argv: ['sleep', '1'] };
    await expect(tmux.newSession({ ...ok, name: 'has.dot' })).rejects.toMatchObject({ code: 'TMUX_FAILED' });
    await expect(tmux.newSession({ ...ok, name: 'has:colon' })).rejects.toMatchObject({ code: 'TMUX_FAILED' });
    await expect(tmux.newSession({ ...ok, name: sessionName('badenv'), env: { 'A=B': 'x' } })).rejects.toMatchObject({
      code: 'TMUX_FAILED',
    });
    await expect(
      tmux.newSession({ ...ok, name: sessionName('badargv'), argv: ['X=1', 'sleep'] }),
    ).rejects.toMatchObject({ code: 'TMUX_FAILED' });
    expect((await tmux.listSessions()).filter((n) => n.includes('badenv') || n.includes('badargv'))).toEqual([]);
  });

  it('reports a dead pane, with its exit status when tmux kept it (remain-on-exit)', async () => {
    const name = sessionName('dead');
    await tmux.newSession({
      name,
      cwd: os.tmpdir(),
      width: 80,
      height: 24,
      env: baseEnv,
      argv: ['sh', '-c', '(sleep 3 &); sleep 0.3; exit 3'],
    });
    // Dead first; tmux reaps the status a moment later, or (3.3a reading the pty's end before the exit, on a
    // loaded machine) never: the pane is dead all the same, and the backend says "status unknown".
    let info = await tmux.paneInfo(name);
    for (const end = Date.now() + 60_000; !info.dead && Date.now() < end; )
      await sleep(50), (info = await tmux.paneInfo(name));
    for (const end = Date.now() + 5_000; info.deadStatus === undefined && Date.now() < end; )
      await sleep(50), (info = await tmux.paneInfo(name));
    expect(info).toMatchObject({ dead: true, inMode: false, deadSignal: undefined });
    expect([3, undefined]).toContain(info.deadStatus);
    expect(howItExited(info)).toBe(info.deadStatus === 3 ? 'status 3' : 'status unknown');
    await tmux.killSession(name);
  });

  it(
    'starts a session right after the server’s last one was killed (as a respawn does): never “server ' +
      'exited unexpectedly”',
    async () => {
      const own = new Tmux({ name: `rudder-test-respawn-${process.pid}` });
      try {
        // The server exits when its last session closes; a client connecting meanwhile fails unless it tries again.
        for (let i = 0; i < 40; i++) {
          await own.newSession({
            name: 'respawn',
            cwd: os.tmpdir(),
            width: 80,
            height: 24,
            env: baseEnv,
            argv: ['sleep', '30'],
          });
          expect(await own.killSession('respawn')).toBe(true);
        }
      } finally {
        await own.killServer();
      }
    },
  );

  it('reports a live pane with its pid', async () => {
    const name = sessionName('live');
    await tmux.newSession({ name, cwd: os.tmpdir(), width: 80, height: 24, env: baseEnv, argv: ['sleep', '30'] });
    const info = await tmux.paneInfo(name);
    expect(info.dead).toBe(false);
    expect(() => process.kill(info.pid, 0)).not.toThrow();
    await tmux.killSession(name);
  });

  it('types literal text of any size and shape, 8 KB at a time', async () => {
    const { name, rec } = await startRecorder('plain');
    const awkward = 'ends with semicolon; \\; #{pane_pid} $HOME ~ {x} -t "q" \'s\' ❯ é 😀 ;';
    const long = 'x'.repeat(20_000);
    await tmux.sendKeysLiteral(name, awkward);
    await tmux.sendKeysLiteral(name, long);
    await tmux.sendKeys(name, 'Enter');
    const expected = Buffer.from(`${awkward}${long}\r`, 'utf8');
    expect((await rec.waitForBytes(expected.length)).equals(expected)).toBe(true);
    await tmux.killSession(name);
  });

  it('pastes 20 KB of multi-line text intact, inside one pair of bracketed-paste markers', async () => {
    const { name, rec } = await startRecorder('bracketed');
    const lines = Array.from(
      { length: 400 },
      (_, i) => `line ${String(i).padStart(3, '0')}: ${'the quick brown fox; '.repeat(2)}❯`,
    );
    const text = lines.join('\n');
    expect(Buffer.byteLength(text)).toBeGreaterThan(20_000);
    await tmux.pasteBracketed(name, text);
    const expected = Buffer.from(`${PASTE_START}${text}${PASTE_END}`, 'utf8');
    const got = await rec.waitForBytes(expected.length);
    expect(got.length).toBe(expected.length);
    expect(got.toString('utf8')).toBe(expected.toString('utf8'));
    await tmux.killSession(name);
  });

  it('pastes in pieces of at most 8 KB inside one pair of markers, and strips what could end the paste', async () => {
    const { name, rec } = await startRecorder('bracketed');
    const lines = Array.from(
      { length: 400 },
      (_, i) =>
        `line ${String(i).padStart(3, '0')}: ${'the quick brown fox; '.repeat(2)}❯${i === 200 ? `${PASTE_END}\r` : ''}`,
    );
    const text = lines.join('\n');
    await tmux.pasteChunked(name, text);
    const expected = Buffer.from(`${PASTE_START}${stripControlSequences(text)}${PASTE_END}`, 'utf8');
    expect(expected.length).toBeGreaterThan(20_000);
    const got = (await rec.waitForBytes(expected.length)).toString('utf8');
    expect(got).toBe(expected.toString('utf8'));
    expect(got.indexOf(PASTE_END)).toBe(got.length - PASTE_END.length);
    await tmux.killSession(name);
  });

  it('tmux itself passes ESC[201~ in a buffer through, which is why text is stripped first', async () => {
    const { name, rec } = await startRecorder('bracketed');
    const raw = `a${PASTE_END}b`;
    const tmuxRaw = (...args: string[]) =>
      promisify(execFile)('tmux', ['-L', (tmux.socket as { name: string }).name, ...args]);
    const loaded = tmuxRaw('load-buffer', '-b', 'raw-test', '-');
    loaded.child.stdin?.end(raw);
    await loaded;
    await tmuxRaw('paste-buffer', '-d', '-p', '-r', '-b', 'raw-test', '-t', `=${name}:`);
    const got = (await rec.waitForBytes(Buffer.byteLength(`${PASTE_START}${raw}${PASTE_END}`))).toString('utf8');
    expect(got).toBe(`${PASTE_START}a${PASTE_END}b${PASTE_END}`);
    await tmux.killSession(name);
  });

  it('cannot be broken out of: ESC[201~ (7-bit or 8-bit) inside the text does not end the paste', async () => {
    const { name, rec } = await startRecorder('bracketed');
    const hostile = `before${PASTE_END}\rrm -rf ~\r${ESC}[200~mid\x9b201~after${ESC}]0;title\x07end`;
    await tmux.pasteBracketed(name, hostile);
    const clean = stripControlSequences(hostile);
    expect(clean).toBe('before\nrm -rf ~\nmidafterend');
    const expected = `${PASTE_START}${clean}${PASTE_END}`;
    const got = (await rec.waitForBytes(Buffer.byteLength(expected))).toString('utf8');
    expect(got).toBe(expected);
    expect(got.indexOf(PASTE_END)).toBe(got.length - PASTE_END.length);
    await tmux.killSession(name);
  });

  it('adds no paste markers when the program did not ask for bracketed paste, and keeps LF as LF', async () => {
    const { name, rec } = await startRecorder('plain');
    await tmux.pasteBracketed(name, 'one\ntwo');
    expect((await rec.waitForBytes(7)).toString('utf8')).toBe('one\ntwo');
    await tmux.killSession(name);
  });

  it('leaves copy mode before typing, so the keys reach the program', async () => {
    const { name, rec } = await startRecorder('plain');
    const socketArgs = ['-L', (tmux.socket as { name: string }).name];
    await promisify(execFile)('tmux', [...socketArgs, 'copy-mode', '-t', `=${name}:`]);
    expect((await tmux.paneInfo(name)).inMode).toBe(true);
    await tmux.leaveCopyMode(name);
    expect((await tmux.paneInfo(name)).inMode).toBe(false);
    await tmux.leaveCopyMode(name);
    await tmux.sendKeysLiteral(name, 'after copy mode');
    expect((await rec.waitForBytes(15)).toString('utf8')).toBe('after copy mode');
    await tmux.killSession(name);
  });

  it('captures with escapes on request', async () => {
    const name = sessionName('sgr');
    await tmux.newSession({
      name,
      cwd: os.tmpdir(),
      width: 80,
      height: 24,
      env: baseEnv,
      argv: ['sh', '-c', "printf '\\033[2mdim\\033[0m plain\\n'; sleep 30"],
    });
    await waitForText(name, 'dim plain');
    expect(await tmux.capturePane(name)).not.toContain(ESC);
    expect(await tmux.capturePane(name, { escapes: true })).toContain(`${ESC}[2mdim`);
    await tmux.killSession(name);
  });
});

describe('tmux argument helpers', () => {
  it('escapes a final semicolon so tmux does not read it as a command separator', () => {
    expect(escapeTmuxArg('abc;')).toBe('abc\\;');
    expect(escapeTmuxArg(';')).toBe('\\;');
    expect(escapeTmuxArg('a;b')).toBe('a;b');
    expect(escapeTmuxArg('plain')).toBe('plain');
  });

  it('chunks by UTF-8 bytes without splitting a code point', () => {
    const text = '😀'.repeat(5000) + 'é'.repeat(3);
    const chunks = chunkUtf8(text, 8192);
    expect(chunks.join('')).toBe(text);
    for (const c of chunks) expect(Buffer.byteLength(c)).toBeLessThanOrEqual(8192);
    expect(chunks.length).toBe(Math.ceil(Buffer.byteLength(text) / 8192));
  });
});

// A dead pane whose exit status tmux lost (3.3a on a loaded machine) is "exited, status unknown".
describe('how a dead pane exited', () => {
  it('says the status, the signal, or that the status is unknown', () => {
    expect(howItExited({ deadStatus: 3, deadSignal: undefined })).toBe('status 3');
    expect(howItExited({ deadStatus: undefined, deadSignal: 9 })).toBe('signal 9');
    expect(howItExited({ deadStatus: undefined, deadSignal: undefined })).toBe('status unknown');
  });
});
