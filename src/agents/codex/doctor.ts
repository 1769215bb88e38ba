/**
 * `rudder doctor` for Codex: the binary, its version against the pinned one, a real app-server
 * handshake, the auth source and a minimal request to the model, each with the fix when it fails
 * (the binary's fixes are its spec's, binary.ts; the others are worded once, here). The request is
 * a real one (an ephemeral thread, read-only, one short answer): it is what proves the provider,
 * the key and the network together.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Logger, silentLogger } from '../../ops/logger.js';
import { checkBinary, firstLine } from '../common/check-binary.js';
import { binaryLines, type Check, failed, passed } from '../common/doctor.js';
import { CODEX_BINARY } from './binary.js';
import { configArgs } from './config-args.js';
import { textInput, type v2 } from './protocol/index.js';
import { AppServer } from './server/app-server.js';
import { turnError } from './session/results.js';

export const CODEX_FIX = {
  server:
    'Check agent.codex.config (codex refuses a start-up setting it does not know: see the stderr above) and that ' +
    'CODEX_HOME is writable by the user Rudder runs as.',
  auth:
    'Run `codex login` once as the user Rudder runs as (with the same CODEX_HOME), or set OPENAI_API_KEY (or ' +
    'CODEX_API_KEY) in the environment Rudder runs in or in agent.env.',
  request:
    'Check the model and provider in agent.codex.config, the network to the provider, and the auth above; ' +
    '`codex exec "say OK"` in a terminal shows the same failure with more detail.',
} as const;

export type CodexCheck = Check;

export interface CodexCheckInput {
  /** agent.codex.bin */
  configured?: string;
  /** agent.codex.config */
  config?: Record<string, unknown>;
  /** Where RUDDER_CODEX_BIN and PATH are read. */
  env: NodeJS.ProcessEnv;
  /** The agent's environment (buildCodexEnv): CODEX_HOME and the keys come from it. */
  agentEnv: Record<string, string>;
  /** Skip the minimal model request (it costs one short answer). */
  noRequest?: boolean;
  timeoutMs?: number;
  logger?: Logger;
}

/** The checks, in order; each later one runs only when the ones it needs passed. */
export async function checkCodex(input: CodexCheckInput): Promise<CodexCheck[]> {
  const timeoutMs = input.timeoutMs ?? 60_000;
  const c = await checkBinary(CODEX_BINARY, input, 20_000);
  const { checks, runs } = binaryLines(CODEX_BINARY, c);
  if (!runs) return checks;
  let args: string[];
  try {
    args = configArgs(input.config);
  } catch (err) {
    return [...checks, failed('codex app-server', (err as Error).message, CODEX_FIX.server)];
  }
  const server = AppServer.start({
    bin: c.path!,
    configArgs: args,
    env: input.agentEnv,
    cwd: os.tmpdir(),
    logger: input.logger ?? silentLogger(),
    label: 'doctor',
  });
  try {
    await serverChecks(server, input, checks, timeoutMs);
  } finally {
    await server.end('doctor done', 2_000, 2_000);
  }
  return checks;
}

async function serverChecks(server: AppServer, input: CodexCheckInput, checks: CodexCheck[], timeoutMs: number) {
  let codexHome: string;
  try {
    const init = await withTimeout(server.ready, timeoutMs, 'initialize');
    codexHome = init.codexHome;
    checks.push(passed('codex app-server', `handshake done (${init.userAgent}); CODEX_HOME ${codexHome}`));
  } catch (err) {
    const tail = server
      .stderrTail()
      .filter((l) => l.trim())
      .slice(-2)
      .join(' | ');
    const detail = `${(err as Error).message}${tail ? ` stderr: ${tail}` : ''}`;
    checks.push(failed('codex app-server', detail, CODEX_FIX.server));
    return;
  }
  const auth = await authCheck(server, input.agentEnv, codexHome);
  checks.push(auth);
  if (!auth.ok || input.noRequest) return;
  checks.push(await requestCheck(server, timeoutMs));
}

async function authCheck(server: AppServer, env: Record<string, string>, codexHome: string): Promise<CodexCheck> {
  const sources = [
    env.OPENAI_API_KEY ? 'OPENAI_API_KEY' : '',
    env.CODEX_API_KEY ? 'CODEX_API_KEY' : '',
    fs.existsSync(path.join(codexHome, 'auth.json')) ? `a codex login (${path.join(codexHome, 'auth.json')})` : '',
  ].filter(Boolean);
  const also = (open: string) => (sources.length ? `${open}${sources.join(', ')})` : '');
  let account: v2.GetAccountResponse | undefined;
  try {
    account = await server.request('account/read', {}, 15_000);
  } catch {
    // An older server without account/read: the sources found decide.
  }
  if (account && !account.requiresOpenaiAuth)
    return passed('codex auth', `the configured model provider needs no OpenAI login${also(' (also found: ')}`);
  const kind = account?.account?.type;
  const detail = kind
    ? `${kind === 'chatgpt' ? 'ChatGPT login' : kind === 'apiKey' ? 'API key' : kind}${also(' (')}`
    : sources.join(', ');
  if (detail) return passed('codex auth', detail);
  const none = `no OPENAI_API_KEY, CODEX_API_KEY or codex login (looked in ${codexHome})`;
  return failed('codex auth', none, CODEX_FIX.auth);
}

/** An ephemeral read-only thread, one short turn: the model answers, or the failure says why. */
async function requestCheck(server: AppServer, timeoutMs: number): Promise<CodexCheck> {
  const fail = (detail: string, fix: string = CODEX_FIX.request) => failed('codex request', detail, fix);
  try {
    const { turn, threadId, ms } = await askOk(server, timeoutMs);
    if (turn.status === 'completed') {
      const text = turn.items.find((i) => i.type === 'agentMessage');
      const said = text && 'text' in text ? firstLine(String(text.text)).slice(0, 60) : '';
      return passed('codex request', `the model answered in ${ms} ms${said ? `: "${said}"` : ''}`);
    }
    const err = turnError(
      turn.error,
      { conversationId: 'doctor', threadId, pid: server.pid, rateLimits: server.rateLimits() },
      [],
    );
    if (err.code === 'AGENT_RATE_LIMITED')
      return fail(err.message, 'Wait for the limit to reset (`codex` shows your limits), or use another key or plan.');
    const info = JSON.stringify(turn.error?.codexErrorInfo ?? null);
    return fail(err.message, /unauthorized|401/i.test(`${info} ${err.message}`) ? CODEX_FIX.auth : CODEX_FIX.request);
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** Starts the thread and the turn, and waits for turn/completed (approvals declined); ms: from turn/start. */
async function askOk(server: AppServer, timeoutMs: number): Promise<{ turn: v2.Turn; threadId: string; ms: number }> {
  const { thread } = await server.request(
    'thread/start',
    { cwd: os.tmpdir(), ephemeral: true, approvalPolicy: 'never', sandbox: 'read-only' },
    timeoutMs,
  );
  const done = new Promise<v2.Turn>((resolve) => {
    server.host(thread.id, {
      notification: (method, params) => {
        if (method === 'turn/completed') resolve((params as v2.TurnCompletedNotification).turn);
      },
      request: (id) => void server.respond(id, { decision: 'decline' }),
      exit: () => undefined,
    });
  });
  const t0 = Date.now();
  await server.request('turn/start', { threadId: thread.id, input: [textInput('Reply with the single word OK.')] });
  const turn = await withTimeout(done, timeoutMs, 'the answer');
  return { turn, threadId: thread.id, ms: Date.now() - t0 };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no ${what} within ${Math.round(ms / 1000)} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
