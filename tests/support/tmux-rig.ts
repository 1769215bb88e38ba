/**
 * The rig for the claude-tmux backend: the pinned TUI in tmux on a private socket, against the
 * mock Messages API, with a fresh HOME that is onboarded and nothing else (the trust and API-key
 * dialogs appear, and the backend answers them by their text).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Tmux } from '../../src/agents/tmux/pane/tmux.js';
import { TMUX_DEFAULTS, type TmuxLaunch, type TmuxSettings } from '../../src/agents/tmux/tmux-launch.js';
import { ClaudeTmuxSession } from '../../src/agents/tmux/tmux-session.js';
import type { Logger } from '../../src/ops/logger.js';
import { createLogger, silentLogger } from '../../src/ops/logger.js';
import { CLAUDE_BIN, rigEnv, tempDir } from './claude-rig.js';

let socketCounter = 0;
const made: string[] = [];

/** Removes the HOMEs and working directories this rig made (after their sessions stopped). */
export function removeRigDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** A tmux socket name of this test process only; kill its server in afterAll. */
export function privateSocket(tag: string): string {
  return `rudder-test-${tag}-${process.pid}-${socketCounter++}`;
}

let sharedLog: Logger | undefined;
/** RIG_LOG_DIR=<dir>: every session's backend log (debug level) goes to <dir>/rudder.log, to see why a run failed. */
function rigLogger(): Logger {
  if (!process.env.RIG_LOG_DIR) return silentLogger();
  return (sharedLog ??= createLogger({ dataDir: process.env.RIG_LOG_DIR, level: 'debug', pretty: false }));
}

/** A HOME where the TUI skips onboarding (offline it would exit); every other first-run dialog stays. */
export function onboardedHome(): string {
  const home = tempDir('thome');
  made.push(home);
  fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  return home;
}

export interface TmuxRigOptions {
  mockUrl: string;
  socket: string;
  conversationId?: string;
  home?: string;
  cwd?: string;
  logger?: Logger;
  launch?: Partial<TmuxLaunch>;
  tmux?: Partial<TmuxSettings>;
}

export function tmuxLaunch(opts: TmuxRigOptions): TmuxLaunch & { home: string } {
  const home = opts.home ?? onboardedHome();
  const cwd = opts.cwd ?? fs.realpathSync(tempDir('tcwd'));
  if (!opts.cwd) made.push(cwd);
  return {
    conversationId: opts.conversationId ?? 'tmux-test',
    cwd,
    home,
    bin: CLAUDE_BIN,
    env: { ...rigEnv(opts.mockUrl, home), TERM: 'tmux-256color' },
    logger: opts.logger ?? rigLogger(),
    permissionMode: 'bypassPermissions',
    interruptGraceMs: 5000,
    ...opts.launch,
    tmux: {
      ...TMUX_DEFAULTS,
      socket: opts.socket,
      messageDir: path.join(home, 'rudder-messages'),
      autoAllow: [],
      ...opts.tmux,
    },
  };
}

/** Kills every tmux server the tests started, by exact socket name. */
export async function killServers(sockets: string[]): Promise<void> {
  await Promise.all(sockets.map((s) => new Tmux({ name: s }).killServer()));
}

/** The lines the TUI writes first in a new session's transcript, before any of the conversation. */
const METADATA_TYPES = new Set(['mode', 'permission-mode', 'atis-latch', 'file-history-snapshot', 'tools-used']);

/**
 * kill -9 of the pane's claude the moment its tool starts (the tool touches `flag`). Claude Code
 * writes a new session's conversation to its transcript in batches: a kill at that moment leaves
 * metadata lines only most of the time, a whole transcript now and then, no file rarely. The
 * transcript is left as the common case has it (its metadata lines, in the order written), so the
 * test sees that state every time and not one run in three.
 */
export async function killAtToolStart(
  pid: () => number | undefined,
  flag: string,
  transcript: () => string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(flag)) {
    if (Date.now() > deadline) throw new Error(`the tool never started (${flag})`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const target = pid();
  if (target === undefined) throw new Error('no pane process to kill');
  process.kill(target, 'SIGKILL');
  const file = transcript();
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const kept = lines.filter((l) => METADATA_TYPES.has(String((JSON.parse(l) as { type?: unknown }).type)));
  if (kept.length === 0)
    kept.push(
      JSON.stringify({ type: 'mode', mode: 'normal' }),
      JSON.stringify({ type: 'permission-mode', permissionMode: 'default' }),
    );
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${kept.join('\n')}\n`);
}

/**
 * How long the TUI takes on this machine, now, from a new session's first message to its reply:
 * start-up, the first-run dialogs and one short turn. Time budgets of tests derive from it, so a
 * loaded machine stretches them instead of failing them.
 */
export async function measureTuiFirstTurnMs(mockUrl: string): Promise<number> {
  const socket = privateSocket('measure');
  const s = new ClaudeTmuxSession(tmuxLaunch({ mockUrl, socket, conversationId: 'measure-start-up' }));
  const started = Date.now();
  try {
    await s.startTurn({ inputs: [{ id: 'measure', text: 'hello tag:measure' }] }).result;
    return Date.now() - started;
  } finally {
    await s.stop('measured');
    await killServers([socket]);
  }
}
