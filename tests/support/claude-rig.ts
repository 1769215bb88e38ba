/**
 * The rig for real-CLI tests: the pinned claude binary against the mock Messages API, each run
 * with its own HOME and working directory, retries off and non-essential traffic off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach } from 'vitest';
import { bundledClaude } from '../../src/agents/claude/binary.js';
import { buildAgentEnv } from '../../src/agents/claude/env.js';
import type { ClaudeLaunch } from '../../src/agents/claude/launch.js';
import type { AgentSession, Turn, TurnEvent } from '../../src/agents/session.js';
import { type Logger, silentLogger } from '../../src/ops/logger.js';

export const CLAUDE_BIN = (() => {
  const bin = bundledClaude();
  if (!bin) throw new Error('The pinned @anthropic-ai/claude-code is not installed: run npm ci.');
  return bin;
})();

export const FAKE_CLAUDE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-claude.mjs');

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `rudder-${prefix}-`));
}

/** How the CLI authenticates to the mock: an API key, or a subscription login (429s then carry a reset time). */
export type MockAuth = { ANTHROPIC_API_KEY: string } | { CLAUDE_CODE_OAUTH_TOKEN: string };

/**
 * The agent variables that point the real CLI at the mock Messages API: a private HOME, retries
 * and non-essential traffic off. The one definition for the rigs, the gateway configs and the chaos runner.
 */
export function mockAgentEnv(
  mockUrl: string,
  home: string,
  auth: MockAuth = { ANTHROPIC_API_KEY: 'sk-ant-test-key' },
): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: mockUrl,
    ...auth,
    HOME: home,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    // The CLI refuses bypass mode as root outside a sandbox; test machines often run as root.
    ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
  };
}

/** Environment for a CLI child in tests: a private HOME, the mock API, no retries, no side traffic. */
export function rigEnv(mockUrl: string, home: string, extra: Record<string, string> = {}): Record<string, string> {
  return buildAgentEnv({
    inherited: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    extra: { ...mockAgentEnv(mockUrl, home), ...extra },
  });
}

export interface RigOptions {
  mockUrl: string;
  conversationId?: string;
  bin?: string;
  logger?: Logger;
  env?: Record<string, string>;
  launch?: Partial<ClaudeLaunch>;
}

export function rigLaunch(opts: RigOptions): ClaudeLaunch & { home: string } {
  const home = tempDir('home');
  const cwd = tempDir('cwd');
  return {
    conversationId: opts.conversationId ?? 'test',
    cwd,
    home,
    bin: opts.bin ?? CLAUDE_BIN,
    env: rigEnv(opts.mockUrl, home, opts.env),
    logger: opts.logger ?? silentLogger(),
    permissionMode: 'bypassPermissions',
    ...opts.launch,
  };
}

/** The sessions a test file starts, each stopped after every test. Call at the top of the file. */
export function trackSessions<S extends AgentSession>(): S[] {
  const sessions: S[] = [];
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.stop('test over')));
  });
  return sessions;
}

/** Resolves with the turn's first event of a type (the turn replays its log, so one already emitted counts). */
export function untilEvent<T extends TurnEvent['type']>(turn: Turn, type: T): Promise<Extract<TurnEvent, { type: T }>> {
  return new Promise((resolve) => {
    const off = turn.onEvent((e) => {
      if (e.type !== type) return;
      off();
      resolve(e as Extract<TurnEvent, { type: T }>);
    });
  });
}

/** True while a pid exists (signal 0 probes without killing). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  stepMs = 25,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}

/** A logger that keeps every record, for asserting on log lines. */
export function recordingLogger(): { logger: Logger; records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void records.push(JSON.parse(line)) });
  return { logger, records };
}
