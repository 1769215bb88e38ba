/**
 * A project's Codex threads, asked of the app-server (thread/list, filtered by the directories the
 * threads worked in), on the same shared server the conversations use: a listing while none runs
 * starts one and lets it go. Checked on 0.171: threads Rudder starts are recorded with source
 * `vscode`, the cwd filter matches the recorded cwd exactly (a trailing "/" aside), and `preview`
 * is the first user message as the model got it (Rudder's wrapper included).
 */
import { realOrSelf } from '../../config/projects.js';
import type { HistoryContext, PastSession, SessionHistory } from '../history.js';
import { resolveCodexBinary } from './binary.js';
import { configArgs } from './config-args.js';
import { codexEnv } from './env.js';
import type { v2 } from './protocol/index.js';
import type { AppServer } from './server/app-server.js';
import type { CodexServers } from './server/servers.js';

/** Every thread a person or Rudder started; sub-agents' threads are parts of another. */
const SOURCES: v2.ThreadSourceKind[] = ['cli', 'vscode', 'exec', 'appServer'];
const LIST_TIMEOUT_MS = 15_000;

/** thread/list's params for threads that worked in one of these directories, most recently used first. */
export function threadListParams(cwds: string[], limit: number, ids?: string[]): v2.ThreadListParams {
  // A directory may be recorded as given or resolved (a symlinked project): both are asked for.
  const dirs = [...new Set(cwds.flatMap((c) => [c, realOrSelf(c)]))];
  return {
    cwd: dirs,
    limit,
    sortKey: 'updated_at',
    sourceKinds: SOURCES,
    ...(ids ? { includedThreadIds: ids } : {}),
  };
}

/** A listed thread as /sessions shows it: its title when it has one, else its first message. */
export function pastThread(t: v2.Thread): PastSession {
  const preview = t.name?.trim() || t.preview.trim();
  return { id: t.id, updatedAt: t.updatedAt * 1000, ...(preview ? { preview } : {}) };
}

/** Codex's threads, read through the app-server the agent settings `ctx` pick. */
export function codexHistory(ctx: HistoryContext, servers: CodexServers): SessionHistory {
  const ask = async <T>(what: (server: AppServer) => Promise<T>): Promise<T> => {
    const { agent, env } = ctx;
    // The key a conversation's launch gives (launch.ts): a server that runs already answers.
    const key = {
      bin: resolveCodexBinary(agent.codex.bin, env).path,
      configArgs: configArgs(agent.codex.config),
      env: codexEnv(agent, env),
    };
    const lease = servers.lease(key, 'thread list');
    try {
      return await what(lease.server);
    } finally {
      // Not awaited: the last lease ending stops the server, which the answer need not wait for.
      void lease.release('threads listed');
    }
  };
  const threads = (params: v2.ThreadListParams) =>
    ask(async (s) => (await s.request('thread/list', params, LIST_TIMEOUT_MS)).data);
  return {
    noun: 'Codex threads',
    list: async (cwds, limit) => (await threads(threadListParams(cwds, limit))).map(pastThread),
    has: async (cwds, id) => (await threads(threadListParams(cwds, 1, [id]))).some((t) => t.id === id),
  };
}
