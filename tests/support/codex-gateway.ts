/**
 * A real gateway on the codex backend for end-to-end tests: the pinned codex binary against the
 * mock Responses API, a private HOME and CODEX_HOME per gateway (threads live there, so a restart
 * given the same agent settings resumes them). Budgets scale with how long this machine took for a
 * first round trip, so a loaded machine stretches the waits instead of failing them.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from './claude-rig.js';
import { codexHome } from './codex-rig.js';
import { type Harness, startInProcess } from './gateway-rig.js';
import {
  type MockResponses,
  mockCodexConfig,
  type ResponsesRequest,
  startMockResponses,
  wrappedIn,
} from './mock-responses.js';

/** Agent settings for the codex backend against the mock, with a private HOME and CODEX_HOME. */
export function codexAgent(mockUrl: string, extra: Record<string, unknown> = {}) {
  const { home, codexHome: dir } = codexHome();
  return {
    backend: 'codex',
    permissionMode: 'bypassPermissions',
    interruptGraceSeconds: 5,
    cwd: tempDir('codex-gw-cwd'),
    codex: { config: mockCodexConfig(mockUrl) },
    env: { HOME: home, CODEX_HOME: dir },
    ...extra,
  };
}

/** The first round trip's time, ×15, between 20 s and 90 s: every wait of a test file. */
export async function roundTripBudget(gw: Harness, conv: string): Promise<number> {
  const t0 = Date.now();
  const w = gw.watch(conv);
  await w.ready;
  const m = await gw.post(conv, 'warm up tag:budget');
  await w.waitReply(m.messageId, 'reply', 90_000);
  w.close();
  return Math.min(90_000, Math.max(20_000, (Date.now() - t0) * 15));
}

/**
 * A file's gateway on the codex backend against the mock Responses API, started before the file's tests (its
 * round-trip budget measured) and stopped after them; `started` hands them to the file's own variables.
 */
export function useCodexGateway(
  started: (s: { mock: MockResponses; gw: Awaited<ReturnType<typeof startInProcess>>; budget: number }) => void,
): void {
  let mock: MockResponses | undefined;
  let gw: Awaited<ReturnType<typeof startInProcess>> | undefined;
  beforeAll(async () => {
    mock = await startMockResponses();
    gw = await startInProcess({ agent: codexAgent(mock.url) });
    started({ mock, gw, budget: await roundTripBudget(gw, 'budget') });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await mock?.close();
  });
}

const MODEL_OUTPUT = new Set(['function_call', 'reasoning', 'custom_tool_call', 'local_shell_call', 'web_search_call']);
const itemKey = (i: any) =>
  JSON.stringify([i?.type, i?.role, i?.call_id, i?.output, (i?.content ?? []).map((c: any) => c?.text ?? '')]);

/**
 * Codex dropped the request's answer: a later request of the thread repeats its input and goes on
 * with more input instead of the answer (seen when a steer lands while an answer streams in; the
 * model's answer is thrown away, as a retry's would be, and never reaches the thread).
 */
export function superseded(r: ResponsesRequest, requests: ResponsesRequest[]): boolean {
  const n = r.input.length;
  return requests.some((q) => {
    if (q.seq <= r.seq || q.threadId !== r.threadId || q.input.length <= n) return false;
    if (!r.input.every((item, k) => itemKey(item) === itemKey(q.input[k]))) return false;
    const next = q.input[n];
    return !(MODEL_OUTPUT.has(next?.type) || (next?.type === 'message' && next.role === 'assistant'));
  });
}

/** Requests whose answer the thread kept that brought the needle as new input: 1 when it reached the model once. */
export function sentTimes(requests: ResponsesRequest[], needle: string): number {
  return requests.filter(
    (r) => r.completed && wrappedIn(r.userTexts).some((t) => t.includes(needle)) && !superseded(r, requests),
  ).length;
}

/** How many wrapped copies of the needle the newest request of the history holds (1: it reached the model once). */
export function copiesInLast(requests: ResponsesRequest[], needle: string): number {
  const last = requests.filter((r) => wrappedIn(r.historyTexts).some((t) => t.includes(needle))).at(-1);
  return last ? wrappedIn(last.historyTexts).filter((t) => t.includes(needle)).length : 0;
}

/** Every message's state, read from a gateway's store file (also while that gateway is dead). */
export function storedStates(home: string): Record<string, string> {
  const db = new Database(path.join(home, 'rudder.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT id, state FROM messages').all() as Array<{ id: string; state: string }>;
    return Object.fromEntries(rows.map((r) => [r.id, r.state]));
  } finally {
    db.close();
  }
}

/** A conversation's saved session (its codex thread), read from a gateway's store file. */
export function storedSession(home: string, conversationId: string): string | null {
  const db = new Database(path.join(home, 'rudder.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT session_id AS s FROM conversations WHERE id = ?').get(conversationId) as
      | { s: string | null }
      | undefined;
    return row?.s ?? null;
  } finally {
    db.close();
  }
}
