/**
 * The rig for real-codex tests: the pinned codex binary against the mock Responses API, each
 * session with its own CODEX_HOME, HOME and working directory. Sessions of one test may share an
 * app-server pool (servers()), as the gateway's do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { bundledCodex } from '../../src/agents/codex/binary.js';
import { CodexSession } from '../../src/agents/codex/codex-session.js';
import { configArgs } from '../../src/agents/codex/config-args.js';
import { buildCodexEnv } from '../../src/agents/codex/env.js';
import type { CodexLaunch } from '../../src/agents/codex/launch.js';
import { AppServer } from '../../src/agents/codex/server/app-server.js';
import { CodexServers } from '../../src/agents/codex/server/servers.js';
import { decodeClientId } from '../../src/agents/codex/session/client-id.js';
import { silentLogger } from '../../src/ops/logger.js';
import { tempDir } from './claude-rig.js';
import { mockCodexConfig } from './mock-responses.js';

export const CODEX_BIN = (() => {
  const bin = bundledCodex();
  if (!bin) throw new Error('The pinned @openai/codex (and its native binary) is not installed: run npm ci.');
  return bin;
})();

export interface CodexRigOptions {
  mockUrl: string;
  conversationId?: string;
  /** Share the app-server with other sessions of the test (same CODEX_HOME then). */
  servers?: CodexServers;
  codexHome?: string;
  launch?: Partial<CodexLaunch>;
}

/** A private CODEX_HOME and HOME for one test (codex keeps its threads and config there). */
export function codexHome(): { codexHome: string; home: string } {
  const home = tempDir('codex-user');
  const codexHome = path.join(home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true, mode: 0o700 });
  return { codexHome, home };
}

export function codexLaunch(opts: CodexRigOptions): CodexLaunch & { codexHome: string } {
  const homes = opts.codexHome ? { codexHome: opts.codexHome, home: path.dirname(opts.codexHome) } : codexHome();
  const cwd = tempDir('codex-cwd');
  return {
    conversationId: opts.conversationId ?? 'test',
    cwd,
    codexHome: homes.codexHome,
    bin: CODEX_BIN,
    config: mockCodexConfig(opts.mockUrl),
    env: buildCodexEnv({
      inherited: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      extra: { HOME: homes.home, CODEX_HOME: homes.codexHome },
    }),
    logger: silentLogger(),
    permissionMode: 'bypassPermissions',
    servers: opts.servers,
    ...opts.launch,
  };
}

/** Pools and sessions a test file starts, all stopped after every test. Call at the top of the file. */
export function trackCodex() {
  const sessions: CodexSession[] = [];
  const pools: CodexServers[] = [];
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.stop('test over')));
    await Promise.all(pools.splice(0).map((p) => p.stopAll('test over')));
  });
  return {
    sessions,
    session(launch: CodexLaunch): CodexSession {
      const s = new CodexSession(launch);
      sessions.push(s);
      return s;
    },
    servers(): CodexServers {
      const p = new CodexServers({ logger: silentLogger() });
      pools.push(p);
      return p;
    },
  };
}

/** The rollout codex keeps a thread in (CODEX_HOME/sessions/…/rollout-…-<thread>.jsonl): the model's context. */
function rolloutFile(codexHome: string, threadId: string): string | undefined {
  const walk = (dir: string): string | undefined => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        const found = walk(p);
        if (found) return found;
      } else if (e.name.includes(threadId)) return p;
    }
    return undefined;
  };
  const root = path.join(codexHome, 'sessions');
  return fs.existsSync(root) ? walk(root) : undefined;
}

/**
 * Waits until codex has written the needle to the thread's rollout, so a kill -9 after it tests a
 * thread that holds the input (codex keeps the same items in CODEX_HOME/thread_history_1.sqlite,
 * which thread/resume lists; Rudder reads what the thread holds from there).
 */
export async function untilPersisted(codexHome: string, threadId: string, needle: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    const file = rolloutFile(codexHome, threadId);
    if (file && fs.readFileSync(file, 'utf8').includes(needle)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`codex did not write ${needle} to the rollout of ${threadId} within 30 s`);
}

/**
 * Waits until codex's own history of the thread (what thread/resume will list, read by a second
 * app-server on the same CODEX_HOME) holds the input: a kill -9 after it tests a thread that holds it.
 */
export async function untilThreadHolds(launch: CodexLaunch, threadId: string, inputId: string): Promise<void> {
  const server = AppServer.start({
    bin: CODEX_BIN,
    configArgs: configArgs(launch.config),
    env: launch.env,
    cwd: os.tmpdir(),
    logger: silentLogger(),
    label: 'probe',
  });
  try {
    const end = Date.now() + 30_000;
    while (Date.now() < end) {
      const { thread } = await server.request('thread/read', { threadId, includeTurns: true });
      const held = thread.turns.some((t) =>
        t.items.some((i) => i.type === 'userMessage' && decodeClientId(i.clientId)?.includes(inputId)),
      );
      if (held) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`codex's history of ${threadId} did not hold ${inputId} within 30 s`);
  } finally {
    await server.end('probe done', 1_000, 1_000);
  }
}
