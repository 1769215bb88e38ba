/**
 * Typed wrappers over the tmux binary. Commands run through execFile (never a shell), all on one
 * server socket, and every target uses tmux's exact-name syntax (`=name:` for panes, `=name` for
 * sessions) so a session called `abc` can never resolve to `abcdef` by prefix match.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RudderError } from '../../../errors.js';
import { withUserUmask } from '../../../ops/data-dir.js';
import { stripControlSequences } from '../../../security/control-sequences.js';

export { stripControlSequences } from '../../../security/control-sequences.js';

/** Which tmux server to talk to: `-L name` (socket under tmux's tmp dir) or `-S path`. */
export type TmuxSocket = { name: string } | { path: string };

export interface NewSessionOptions {
  name: string;
  cwd: string;
  width: number;
  height: number;
  /** The COMPLETE environment of the program: nothing is inherited from the tmux server. */
  env: Record<string, string>;
  /** Program and arguments, run directly (no shell). */
  argv: readonly string[];
  /** Keep the pane after its program exits, so `#{pane_dead}` can be read (default true). */
  remainOnExit?: boolean;
  /**
   * The program's stderr goes to this file (created 0600) instead of the pane: what a program that
   * exits at once prints is lost to the pane (tmux does not read it before the pane dies).
   */
  stderrFile?: string;
}

export interface PaneInfo {
  dead: boolean;
  pid: number;
  /** The pane is in copy mode (or another mode) and would swallow keys. */
  inMode: boolean;
  /** Exit status of a dead pane's program, when it exited normally. */
  deadStatus: number | undefined;
  /** Terminating signal number of a dead pane's program, when it was killed. */
  deadSignal: number | undefined;
  /** The program switched the pane to the alternate screen. */
  alternateScreen: boolean;
  /** `#{pane_current_command}`: the pane's foreground program (bash once claude, started from it, exited). */
  command?: string;
}

/** `send-keys` fails around 16 KB ("command too long"); 8 KB leaves room for the rest of the command. */
export const SEND_KEYS_CHUNK_BYTES = 8 * 1024;

/** ESC [ 2 0 0 ~ and ESC [ 2 0 1 ~ as `send-keys -H` bytes. */
const PASTE_START_HEX = ['1b', '5b', '32', '30', '30', '7e'];
const PASTE_END_HEX = ['1b', '5b', '32', '30', '31', '7e'];

const TMUX_BIN = 'tmux';
const MAX_OUTPUT = 64 * 1024 * 1024;
let bufferCounter = 0;

interface RunResult {
  stdout: string;
  stderr: string;
}

/** Arguments fit for an error: environment values and typed text (after `--`) become their length. */
function redactArgs(args: string[]): string[] {
  let typed = false;
  return args.map((a) => {
    if (typed) return `<${a.length} chars>`;
    if (a === '--') typed = true;
    const eq = a.indexOf('=');
    return eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(a.slice(0, eq))
      ? `${a.slice(0, eq)}=<${a.length - eq - 1} chars>`
      : a;
  });
}

function runTmux(args: string[], input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    // tmux needs a UTF-8 locale to keep ❯ and box drawing intact; `-u` forces it as well.
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
    };
    // Same socket directory as socketPath(); TMUX is left out so tmux never targets an enclosing server.
    if (process.env.TMUX_TMPDIR) env.TMUX_TMPDIR = process.env.TMUX_TMPDIR;
    // The first call starts the tmux server, whose panes run the agent: under the user's umask, not Rudder's.
    const child = withUserUmask(() =>
      execFile(TMUX_BIN, args, { env, maxBuffer: MAX_OUTPUT, encoding: 'utf8' }, (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
        const detail = String(stderr).trim();
        // The command line carries the agent's environment (API keys) and typed text: errors keep neither.
        const context = { args: redactArgs(args), stderr: detail, exitCode: (err as { code?: unknown }).code };
        const cause = new Error(detail || `tmux exited with ${String(context.exitCode)}`);
        reject(
          missing
            ? new RudderError('TMUX_MISSING', undefined, context, cause)
            : new RudderError('TMUX_FAILED', detail || undefined, context, cause),
        );
      }),
    );
    // A tmux that fails before reading stdin closes the pipe; its exit status reports the failure.
    child.stdin?.on('error', () => undefined);
    if (input !== undefined) child.stdin?.end(input, 'utf8');
  });
}

const SERVER_EXIT_RETRIES = 5;
const serverWasExiting = (err: unknown) =>
  err instanceof RudderError && /server exited unexpectedly|lost server/.test(String(err.context.stderr ?? ''));

/** True when a tmux binary can be run. */
export async function hasTmux(): Promise<boolean> {
  try {
    await runTmux(['-V']);
    return true;
  } catch {
    return false;
  }
}

/** The installed tmux version string, e.g. "tmux 3.3a". */
export async function tmuxVersion(): Promise<string> {
  return (await runTmux(['-V'])).stdout.trim();
}

/** Splits text into pieces of at most maxBytes UTF-8 bytes without cutting a code point. */
export function chunkUtf8(text: string, maxBytes: number): string[] {
  const chunks: string[] = [];
  let current = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > maxBytes && current) chunks.push(current), (current = ''), (bytes = 0);
    current += ch;
    bytes += size;
  }
  if (current) chunks.push(current);
  return chunks;
}

/**
 * tmux reads an argument ending in `;` as a command separator and drops the `;` (`abc;` types
 * `abc`); `\;` at the end is read back as a literal `;`, so that is how a final `;` is kept.
 */
export function escapeTmuxArg(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

const PANE_INFO_FORMAT =
  '#{pane_dead}\t#{pane_pid}\t#{pane_in_mode}\t#{pane_dead_status}\t#{pane_dead_signal}\t#{alternate_on}\t' +
  '#{pane_current_command}';

/**
 * How a dead pane's program ended, for a person: its signal or status. tmux 3.3a loses the status for
 * good when it reads the pty's end before the child's exit (a loaded machine): the pane is dead all the
 * same, so that is "status unknown", never a pane still taken for alive.
 */
export function howItExited(info: Pick<PaneInfo, 'deadStatus' | 'deadSignal'>): string {
  if (info.deadSignal !== undefined) return `signal ${info.deadSignal}`;
  return info.deadStatus !== undefined ? `status ${info.deadStatus}` : 'status unknown';
}

function parsePaneInfo(line: string): PaneInfo {
  const [dead, pid, inMode, status, signal, alt, command] = line.split('\t');
  const num = (s: string | undefined) => (s === undefined || s === '' ? undefined : Number(s));
  return {
    dead: dead === '1',
    pid: Number(pid),
    inMode: inMode === '1',
    deadStatus: num(status),
    deadSignal: num(signal),
    alternateScreen: alt === '1',
    ...(command ? { command } : {}),
  };
}

/** Sources the environment file ($1), deletes it, then runs the program in its place, stderr into $2 when given. */
const LOAD_ENV_AND_EXEC =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: "${1%/*}" is the shell's expansion (the file's folder)
  'set -a; . "$1" || exit 97; set +a; rm -rf "${1%/*}"; e=$2; shift 2; [ -z "$e" ] && exec "$@"; exec "$@" 2>"$e"';

const shellQuote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

function writeEnvFile(env: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-env-'));
  const file = path.join(dir, 'env');
  fs.writeFileSync(
    file,
    Object.entries(env)
      .map(([k, v]) => `${k}=${shellQuote(v)}\n`)
      .join(''),
    { mode: 0o600 },
  );
  return file;
}

/** tmux rewrites `.` and `:` in session names, which would break exact targets: refuse them up front. */
function checkSessionName(name: string): void {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(name))
    throw new RudderError('TMUX_FAILED', `Session name ${JSON.stringify(name)} must be 1-200 of A-Z a-z 0-9 _ -.`);
}

/** A session's pane by its exact name, or a pane by tmux's id (`%12`: no session name can start with `%`). */
const paneTarget = (name: string) => (name.startsWith('%') ? name : `=${name}:`);
const sessionTarget = (name: string) => `=${name}`;
/** list-panes of one pane: by id it would list the pane's whole window, so the id is filtered for. */
const listPane = (name: string) =>
  name.startsWith('%')
    ? ['list-panes', '-t', name, '-f', `#{==:#{pane_id},${name}}`]
    : ['list-panes', '-t', paneTarget(name)];

/** One pane of a server, as list-panes -a reports it. */
export interface ServerPane {
  /** tmux's id of the pane (`%12`), stable for the pane's life. */
  id: string;
  /** Where a person finds it: `session:window.pane`, e.g. `work:2.1`. */
  label: string;
  /** The pid of the pane's program (a shell, or claude itself). */
  pid: number;
  dead: boolean;
  /** The pane's working directory and foreground program. */
  path: string;
  command: string;
}

const ALL_PANES_FORMAT =
  '#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{pane_pid}\t#{pane_dead}\t#{pane_current_path}\t' +
  '#{pane_current_command}';

function parseServerPane(line: string): ServerPane | undefined {
  const [id, label, pid, dead, path, command] = line.split('\t');
  if (!id?.startsWith('%') || !label || !pid) return undefined;
  return { id, label, pid: Number(pid), dead: dead === '1', path: path ?? '', command: command ?? '' };
}

/** One tmux server (socket). Tests construct their own so they never touch the user's server. */
export class Tmux {
  constructor(readonly socket: TmuxSocket) {}

  /** Runs one tmux command, or several in one invocation (joined by tmux's own `;` separator). */
  private async run(command: string[] | string[][], input?: string): Promise<RunResult> {
    const commands = (Array.isArray(command[0]) ? command : [command]) as string[][];
    const socketArgs = 'name' in this.socket ? ['-L', this.socket.name] : ['-S', this.socket.path];
    const args = commands.flatMap((c, i) => [...(i ? [';'] : []), ...c.map(escapeTmuxArg)]);
    // -f /dev/null: a server we start ignores the user's ~/.tmux.conf, so panes behave the same everywhere.
    const argv = ['-u', '-f', '/dev/null', ...socketArgs, ...args];
    for (let attempt = 1; ; attempt++) {
      try {
        return await runTmux(argv, input);
      } catch (err) {
        // Its last session just closed, the server was exiting as this client connected; it did
        // nothing, and the next try starts a fresh server (a respawn right after a death hits this).
        if (attempt >= SERVER_EXIT_RETRIES || !serverWasExiting(err)) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  async newSession(opts: NewSessionOptions): Promise<void> {
    checkSessionName(opts.name);
    // env reads leading NAME=VALUE words as assignments, so neither a key nor the program may look like one.
    const badKey = Object.keys(opts.env).find((k) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
    if (badKey !== undefined)
      throw new RudderError('TMUX_FAILED', `Environment variable name ${JSON.stringify(badKey)} is not valid.`);
    if (!opts.argv.length || opts.argv[0]!.includes('='))
      throw new RudderError('TMUX_FAILED', 'argv must name a program whose path has no "=".');
    // `env -i` gives the program exactly opts.env; tmux's global environment would otherwise leak in.
    // The values (API keys among them) travel in a 0600 file the pane's shell reads and deletes,
    // never on a command line that `ps` or tmux's pane_start_command would show.
    const envFile = writeEnvFile(opts.env);
    if (opts.stderrFile) fs.writeFileSync(opts.stderrFile, '', { mode: 0o600 });
    const command = [
      'env',
      '-i',
      '/bin/sh',
      '-c',
      LOAD_ENV_AND_EXEC,
      'rudder-env',
      envFile,
      opts.stderrFile ?? '',
      ...opts.argv,
    ];
    const args = [
      'new-session',
      '-d',
      '-s',
      opts.name,
      '-x',
      String(opts.width),
      '-y',
      String(opts.height),
      '-c',
      opts.cwd,
    ];
    // remain-on-exit is on for the whole private server before the program starts, so even one
    // that exits at once leaves a dead pane to read (set on the window afterwards, it can be late).
    const keep = opts.remainOnExit ?? true;
    const setKeep = ['set-option', '-g', 'remain-on-exit', 'on'];
    const setOff = ['set-option', '-w', '-t', paneTarget(opts.name), 'remain-on-exit', 'off'];
    try {
      await this.run(
        keep
          ? [['start-server'], setKeep, [...args, ...command]]
          : [['start-server'], setKeep, [...args, ...command], setOff],
      );
    } catch (err) {
      fs.rmSync(path.dirname(envFile), { recursive: true, force: true }); // no pane will read it
      throw err;
    }
  }

  async hasSession(name: string): Promise<boolean> {
    try {
      await this.run(['has-session', '-t', sessionTarget(name)]);
      return true;
    } catch (err) {
      if (err instanceof RudderError && err.code === 'TMUX_MISSING') throw err;
      return false;
    }
  }

  /** The visible pane text; with escapes, SGR attributes too (dim placeholder text shows as ESC[2m). */
  async capturePane(name: string, opts: { escapes?: boolean } = {}): Promise<string> {
    const args = ['capture-pane', '-p', '-t', paneTarget(name)];
    if (opts.escapes) args.push('-e');
    return (await this.run(args)).stdout;
  }

  /** Pane state beside the text: a dead pane can be byte-for-byte an idle prompt. */
  async paneInfo(name: string): Promise<PaneInfo> {
    // list-panes fails on a missing session; display-message would print an empty line and succeed.
    const { stdout } = await this.run([...listPane(name), '-F', PANE_INFO_FORMAT]);
    return parsePaneInfo(stdout.split('\n')[0] ?? '');
  }

  /** The pane's facts and its text from one tmux call (a busy pane is looked at every 200 ms). */
  async look(name: string): Promise<{ info: PaneInfo; text: string }> {
    const { stdout } = await this.run([
      [...listPane(name), '-F', PANE_INFO_FORMAT],
      ['capture-pane', '-p', '-t', paneTarget(name)],
    ]);
    const nl = stdout.indexOf('\n');
    return { info: parsePaneInfo(nl < 0 ? stdout : stdout.slice(0, nl)), text: nl < 0 ? '' : stdout.slice(nl + 1) };
  }

  /** Types text as literal keys, in chunks of at most 8 KB. */
  async sendKeysLiteral(name: string, text: string): Promise<void> {
    for (const chunk of chunkUtf8(text, SEND_KEYS_CHUNK_BYTES))
      await this.run(['send-keys', '-t', paneTarget(name), '-l', '--', chunk]);
  }

  /** Sends named keys (Enter, Escape, Down, BTab, C-c, ...). */
  async sendKeys(name: string, ...keys: string[]): Promise<void> {
    if (keys.length) await this.run(['send-keys', '-t', paneTarget(name), '--', ...keys]);
  }

  /**
   * Pastes text as one bracketed paste. Control sequences are stripped first so the text cannot
   * close the paste early. load-buffer reads stdin, so the size is not bound by command length.
   * tmux adds ESC[200~ / ESC[201~ only if the program enabled bracketed paste; -r keeps LF as LF
   * (not CR, which a TUI reads as Enter) so an unbracketed paste still does not submit line by line.
   */
  async pasteBracketed(name: string, text: string): Promise<void> {
    const clean = stripControlSequences(text);
    if (!clean) return;
    const buffer = `rudder-paste-${process.pid}-${bufferCounter++}`;
    await this.run(['load-buffer', '-b', buffer, '-'], clean);
    await this.run(['paste-buffer', '-d', '-p', '-r', '-b', buffer, '-t', paneTarget(name)]);
  }

  /**
   * One bracketed paste delivered in pieces of at most 8 KB: ESC[200~, each piece as an unbracketed
   * paste-buffer (-r keeps LF as LF), then ESC[201~. For programs that enabled bracketed paste (the
   * Claude Code TUI does). Control sequences are stripped first, so no piece can end the paste.
   */
  async pasteChunked(name: string, text: string, chunkBytes = SEND_KEYS_CHUNK_BYTES): Promise<void> {
    const clean = stripControlSequences(text);
    if (!clean) return;
    await this.run(['send-keys', '-t', paneTarget(name), '-H', ...PASTE_START_HEX]);
    for (const chunk of chunkUtf8(clean, Math.min(chunkBytes, SEND_KEYS_CHUNK_BYTES))) {
      const buffer = `rudder-paste-${process.pid}-${bufferCounter++}`;
      await this.run(['load-buffer', '-b', buffer, '-'], chunk);
      await this.run(['paste-buffer', '-d', '-r', '-b', buffer, '-t', paneTarget(name)]);
    }
    await this.run(['send-keys', '-t', paneTarget(name), '-H', ...PASTE_END_HEX]);
  }

  /**
   * Copy mode swallows keys: leave it before typing. No-op when the pane is not in a mode (pass it when just looked
   * at).
   */
  async leaveCopyMode(name: string, inMode?: boolean): Promise<void> {
    if (inMode ?? (await this.paneInfo(name)).inMode)
      await this.run(['send-keys', '-t', paneTarget(name), '-X', 'cancel']);
  }

  /** Kills one session by exact name; false when it did not exist. */
  async killSession(name: string): Promise<boolean> {
    if (!(await this.hasSession(name))) return false;
    await this.run(['kill-session', '-t', sessionTarget(name)]);
    return true;
  }

  /** The server's panes close when their program exits, as a person's do (a server handed to the person). */
  async closePanesOnExit(name: string): Promise<void> {
    await this.run([
      ['set-option', '-g', 'remain-on-exit', 'off'],
      ['set-option', '-w', '-t', paneTarget(name), 'remain-on-exit', 'off'],
    ]);
  }

  /** Whether a pane (by id or session name) still exists on this server. */
  async hasPane(target: string): Promise<boolean> {
    try {
      return (await this.run([...listPane(target), '-F', '#{pane_id}'])).stdout.trim() !== '';
    } catch (err) {
      if (err instanceof RudderError && err.code === 'TMUX_MISSING') throw err;
      return false;
    }
  }

  /** Every pane of every session of this server; none when no server runs on the socket. */
  async allPanes(): Promise<ServerPane[]> {
    let stdout: string;
    try {
      stdout = (await this.run(['list-panes', '-a', '-F', ALL_PANES_FORMAT])).stdout;
    } catch (err) {
      if (err instanceof RudderError && err.code === 'TMUX_MISSING') throw err;
      return [];
    }
    return stdout.split('\n').flatMap((l) => parseServerPane(l) ?? []);
  }

  async listSessions(): Promise<string[]> {
    try {
      return (await this.run(['list-sessions', '-F', '#{session_name}'])).stdout.split('\n').filter(Boolean);
    } catch {
      return [];
    }
  }

  /** Where the server's socket lives: tmux keeps `-L` sockets under $TMUX_TMPDIR/tmux-UID/. */
  socketPath(): string {
    if ('path' in this.socket) return this.socket.path;
    const uid = process.getuid?.() ?? 0;
    return path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, this.socket.name);
  }

  /** Stops this socket's server and every session on it, and removes the socket file tmux leaves. */
  async killServer(): Promise<void> {
    try {
      await this.run(['kill-server']);
    } catch {
      // no server running on this socket: nothing to stop
    }
    fs.rmSync(this.socketPath(), { force: true });
  }
}
