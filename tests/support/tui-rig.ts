/**
 * Runs the pinned Claude Code TUI in a tmux pane on a private socket, against the mock Messages
 * API, with a fresh HOME seeded to skip (or keep) each first-run dialog.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PaneInfo, Tmux } from '../../src/agents/tmux/pane/tmux.js';
import { type MockApi, type Script, startMockApi } from './mock-anthropic.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLAUDE_BIN = path.join(REPO_ROOT, 'node_modules/.bin/claude');
export const API_KEY = 'sk-test';

/** Which first-run dialogs the seeded HOME has already answered. */
export interface SeedOptions {
  /** `hasCompletedOnboarding`: without it an offline first run exits (status 1). */
  onboarded?: boolean;
  /** `projects[cwd].hasTrustDialogAccepted`: skips "Quick safety check". */
  trusted?: boolean;
  /** `customApiKeyResponses.approved` holds the key's last 20 chars: skips "Detected a custom API key". */
  apiKeyApproved?: boolean;
  /** settings.json `skipDangerousModePermissionPrompt`: skips the bypass-permissions warning. */
  bypassAccepted?: boolean;
  /** `hasSeenAutoDefaultNotice`: hides the "Auto mode is now Claude Code's default" banner. */
  autoNoticeSeen?: boolean;
}

export const READY_SEED: Required<SeedOptions> = {
  onboarded: true,
  trusted: true,
  apiKeyApproved: true,
  bypassAccepted: true,
  autoNoticeSeen: false,
};

export function seedHome(home: string, cwd: string, seed: SeedOptions): void {
  const config: Record<string, unknown> = {};
  if (seed.onboarded) config.hasCompletedOnboarding = true;
  if (seed.trusted) config.projects = { [cwd]: { hasTrustDialogAccepted: true } };
  if (seed.apiKeyApproved) config.customApiKeyResponses = { approved: [API_KEY.slice(-20)], rejected: [] };
  if (seed.autoNoticeSeen) config.hasSeenAutoDefaultNotice = true;
  fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify(config, null, 2));
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  if (seed.bypassAccepted)
    fs.writeFileSync(
      path.join(home, '.claude/settings.json'),
      JSON.stringify({ skipDangerousModePermissionPrompt: true }),
    );
}

export interface RigOptions {
  tmux: Tmux;
  name: string;
  width: number;
  height: number;
  /** Extra CLI arguments, e.g. ['--permission-mode', 'manual']. */
  args?: string[];
  seed?: SeedOptions;
  script?: Script;
  /** The claude binary to run; default the pinned one. */
  bin?: string;
  /**
   * How the CLI authenticates to the mock: an API key (default), or a subscription token (429s then offer the
   * rate-limit menu).
   */
  auth?: 'api-key' | 'oauth';
  /**
   * Start an interactive bash in the pane instead of claude; the scenario types `rig.command` into it, as a person
   * does in a terminal (so a shell prompt is what is left when claude exits).
   */
  viaShell?: boolean;
}

/** The prompt of the pane's shell in viaShell rigs: a plain user@host one, as most people's. */
export const SHELL_PROMPT = 'me@box:~/proj$ ';

export interface Rig {
  readonly name: string;
  readonly home: string;
  readonly cwd: string;
  readonly mock: MockApi;
  readonly tmux: Tmux;
  readonly startedAt: number;
  /** The claude command line (shell-quoted), as typed into a viaShell rig's bash. */
  readonly command: string;
  text(): Promise<string>;
  ansi(): Promise<string>;
  info(): Promise<PaneInfo>;
  /** Polls the plain capture until pred holds; returns that capture. */
  waitFor(pred: (text: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  type(text: string): Promise<void>;
  keys(...keys: string[]): Promise<void>;
  stop(): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const OAUTH_TOKEN = 'sk-ant-oat01-mock-subscription-token';

export function claudeEnv(home: string, apiUrl: string, auth: RigOptions['auth'] = 'api-key'): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TERM: 'tmux-256color',
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: apiUrl,
    ...(auth === 'oauth' ? { CLAUDE_CODE_OAUTH_TOKEN: OAUTH_TOKEN } : { ANTHROPIC_API_KEY: API_KEY }),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    IS_SANDBOX: '1',
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A process's children, grandchildren…, from /proc (Linux). */
function descendants(pid: number): number[] {
  let kids: number[] = [];
  try {
    kids = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

/** Waits for a process to exit; SIGKILLs it (by pid) if it outlives the timeout. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await sleep(50);
  if (alive(pid)) {
    process.kill(pid, 'SIGKILL');
    await sleep(100);
  }
}

/** The environment of a viaShell rig's bash: claude's, its prompt, and the bin's folder first on PATH. */
function shellEnv(env: Record<string, string>, bin: string): Record<string, string> {
  return { ...env, PS1: SHELL_PROMPT, PATH: `${path.dirname(bin)}:${env.PATH}` };
}

export async function startRig(opts: RigOptions): Promise<Rig> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-tui-home-'));
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-tui-cwd-')));
  seedHome(home, cwd, opts.seed ?? READY_SEED);
  const mock = await startMockApi({ script: opts.script });
  const { tmux, name } = opts;
  const startedAt = Date.now();
  const argv = [opts.bin ?? CLAUDE_BIN, ...(opts.args ?? [])];
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  await tmux.newSession({
    name,
    cwd,
    width: opts.width,
    height: opts.height,
    env: opts.viaShell
      ? shellEnv(claudeEnv(home, mock.url, opts.auth), argv[0]!)
      : claudeEnv(home, mock.url, opts.auth),
    argv: opts.viaShell ? ['/bin/bash', '--norc', '--noprofile', '-i'] : argv,
  });

  const text = () => tmux.capturePane(name);
  return {
    name,
    home,
    cwd,
    mock,
    tmux,
    startedAt,
    // A person types `claude …`: the bin's folder is first on the shell's PATH.
    command: opts.viaShell ? ['claude', ...argv.slice(1)].map(quote).join(' ') : argv.map(quote).join(' '),
    text,
    ansi: () => tmux.capturePane(name, { escapes: true }),
    info: () => tmux.paneInfo(name),
    async waitFor(pred, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        last = await text();
        if (pred(last)) return last;
        await sleep(100);
      }
      throw new Error(`${name}: timed out waiting for ${what}; last capture:\n${last}`);
    },
    type: (t) => tmux.sendKeysLiteral(name, t),
    keys: (...k) => tmux.sendKeys(name, ...k),
    async stop() {
      const pid = await tmux.paneInfo(name).then(
        (i) => (i.dead ? undefined : i.pid),
        () => undefined,
      );
      // In a viaShell rig claude is the shell's child: it is waited for too.
      const pids = pid === undefined ? [] : [pid, ...descendants(pid)];
      await tmux.killSession(name);
      // claude may still be writing into HOME as it exits: wait for it before removing the dirs.
      for (const p of pids) await waitForExit(p, 5000);
      await mock.close();
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      fs.rmSync(cwd, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}
