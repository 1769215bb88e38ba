/**
 * The Changes view's data and what it does: the open conversation's changes (its worktree against
 * the base), whole diffs of collapsed files fetched on tap, line comments written and sent as one
 * message, and the actions (commit, ask the agent for a message, merge after a confirmation, ask
 * the agent to resolve a merge's conflict, push, pull request, discard after a confirmation). It
 * reloads when a turn of the conversation ends or an action is recorded. What the last action came
 * to stays until a reload finds other changes than it saw. State lives in the one store
 * (app-store.ts); every call goes through the one client.
 */
import { api, failed, getState, set } from './app-store.js';
import { newClientMessageId } from './device.js';
import {
  type ChangesState,
  type DraftComment,
  fileKey,
  fingerprint,
  type Outcome,
  type PageAction,
} from './review-model.js';
import type { FileChange, MergeResult, PushResult, StreamEvent } from './types.js';

export { type ChangesState, type DraftComment, fileKey, type PageAction } from './review-model.js';

let seq = 0;
const change = (patch: Partial<ChangesState>) => set((s) => (s.changes ? { changes: { ...s.changes, ...patch } } : {}));
const current = () => getState().changes;

function errorOf(err: unknown): { code: string; message: string } {
  const e = err as { code?: string; message?: string };
  return { code: e.code ?? 'ERROR', message: e.message ?? String(err) };
}

/** Shows the open conversation's Changes view (loading it), or the timeline again. */
export function toggleChanges(open = !current()?.open): void {
  const id = getState().currentId;
  if (!id) return;
  const had = current();
  if (!open) return change({ open: false, discard: undefined, confirmMerge: undefined });
  set({ changes: had?.id === id ? { ...had, open: true } : { id, open: true, loading: true, full: {}, comments: [] } });
  void refreshChanges();
  if (!current()?.pr) void checkPullRequest(id);
}

/** Another conversation opened: its changes are not these. */
export function forgetChanges(): void {
  if (current()) set({ changes: undefined });
}

/** Reloads the changes; `done`, what an action came to, is shown with them (the action's busy label goes then). */
export async function refreshChanges(done?: Outcome): Promise<void> {
  const c = current();
  if (!c) return;
  const n = ++seq;
  change({ loading: true });
  try {
    const body = await api().changes(c.id);
    if (n !== seq || current()?.id !== c.id) return;
    // A large file opened before stays as it is shown (lines shown, comments being written) while it is
    // fetched again as it is now.
    const before = current()!.full;
    const full: typeof before = {};
    const again: FileChange[] = [];
    for (const s of Object.values(body.changes.sections))
      for (const f of s.files) {
        const key = fileKey(f);
        if (!f.collapsed || !(key in before)) continue;
        full[key] = before[key]!;
        again.push(f);
      }
    change({
      body,
      error: undefined,
      loading: false,
      full,
      ...(done ? { acting: undefined } : {}),
      outcome: stillCurrent(done ?? current()!.outcome, fingerprint(body)),
    });
    for (const f of again) void loadFull(f, true);
  } catch (err) {
    if (n !== seq || current()?.id !== c.id) return;
    const e = errorOf(err);
    if (e.code === 'ERROR' || e.code === 'INTERNAL_ERROR') failed(err);
    change({ error: e, loading: false });
  }
}

/** An outcome stays while the changes are those the first reload after its action found; then it is old news. */
function stillCurrent(o: Outcome | undefined, now: string): Outcome | undefined {
  if (!o) return undefined;
  if (o.seen === undefined) return { ...o, seen: now };
  return o.seen === now ? o : undefined;
}

let followTimer: ReturnType<typeof setTimeout> | undefined;
/** A turn of this conversation ended, or an action was recorded: the open view reloads. */
export function followChanges(id: string, e: StreamEvent): void {
  const c = current();
  if (!c?.open || c.id !== id) return;
  const ended = e.type === 'turn' && e.data.turn.status !== 'running';
  if (!ended && e.type !== 'review') return;
  clearTimeout(followTimer);
  followTimer = setTimeout(() => void refreshChanges(), 300);
}

async function checkPullRequest(id: string): Promise<void> {
  try {
    const pr = await api().pullRequestAvailable(id);
    if (current()?.id === id) change({ pr });
  } catch {
    // Not known: the button stays, and a press says what is missing.
  }
}

/** The whole diff of a file the view collapsed (too large, or past the view's budget); `again` keeps the one shown. */
export async function loadFull(f: FileChange, again = false): Promise<void> {
  const c = current();
  if (!c) return;
  const key = fileKey(f);
  if (!again || !(key in c.full)) change({ full: { ...c.full, [key]: 'loading' } });
  try {
    const diff = await api().changedFile(c.id, f);
    change({ full: { ...current()!.full, [key]: diff } });
  } catch (err) {
    change({ full: { ...current()!.full, [key]: { error: errorOf(err).message } } });
  }
}

export function addComment(c: Omit<DraftComment, 'key'>): void {
  const s = current();
  if (!s) return;
  change({ comments: [...s.comments, { ...c, key: `${Date.now()}-${++seq}` }] });
}

export function removeComment(key: string): void {
  const s = current();
  if (s) change({ comments: s.comments.filter((c) => c.key !== key) });
}

/** Runs one action, showing it as running, then what it came to; the view reloads after. Resolves to whether it did. */
async function run(
  action: PageAction,
  fn: (id: string) => Promise<{ ok: boolean; text: string; files?: string[] }>,
): Promise<boolean> {
  const c = current();
  if (!c || c.acting) return false;
  change({ acting: action, outcome: undefined, confirmMerge: undefined });
  let outcome: Outcome;
  try {
    outcome = { action, ...(await fn(c.id)) };
  } catch (err) {
    outcome = { action, ok: false, text: errorOf(err).message };
  }
  // The outcome is shown with the changes as they are after it (a later reload that finds others drops it); a
  // reload that started before is older news than this one (its answer is dropped).
  await refreshChanges(outcome);
  // The reload failed, or a newer one took its place: the outcome shows now, and stays until a reload finds others.
  if (current()?.id === c.id && current()?.acting === action) change({ acting: undefined, outcome });
  return outcome.ok;
}

const DISPOSITION: Record<string, string> = {
  turn: 'The agent has it now.',
  steered: 'Handed to the running turn.',
  queued: 'It waits for the running turn to end.',
  merged: 'Merged with the messages waiting.',
};

export function sendComments(): Promise<boolean> {
  return run('comments', async (id) => {
    const comments = current()!.comments.map(({ key: _, ...c }) => c);
    const r = await api().sendComments(id, comments, `web-review-${crypto.randomUUID()}`);
    change({ comments: [] });
    const n = comments.length;
    return {
      ok: true,
      text: `${n} comment${n === 1 ? '' : 's'} sent as one message. ${DISPOSITION[r.disposition] ?? ''}`,
    };
  });
}

export function proposeCommit(): Promise<boolean> {
  return run('propose', async (id) => {
    const r = await api().proposeCommit(id);
    change({ proposal: r.messageId });
    return { ok: true, text: 'Asked the agent to propose a commit message; it shows here when it answers.' };
  });
}

/** Resolves to whether it committed: a refused commit keeps the message the person wrote. */
export function commit(message: string): Promise<boolean> {
  return run('commit', async (id) => {
    const r = await api().commit(id, message);
    return {
      ok: true,
      text: `Committed ${r.files} file${r.files === 1 ? '' : 's'} (${r.sha.slice(0, 7)}): ${r.summary}`,
    };
  });
}

function mergeText(r: MergeResult): { ok: boolean; text: string; files?: string[] } {
  if (r.kind === 'conflict')
    return {
      ok: false,
      text:
        `The merge into ${r.base} stopped on a conflict in ${r.files.length === 1 ? 'this file' : 'these files'}; ` +
        `nothing was changed. The agent can merge ${r.base} into its branch and resolve it; then merge again.`,
      files: r.files,
    };
  if (r.kind === 'up-to-date') return { ok: true, text: `${r.base} already has everything on this branch.` };
  const how = r.kind === 'fast-forward' ? 'fast-forward' : 'a merge commit';
  return { ok: true, text: `Merged into ${r.base} (${how}, ${r.commits} commit${r.commits === 1 ? '' : 's'}).` };
}

/** The merge's confirmation: it names the base and the commits before anything runs. */
export function askMerge(): void {
  change({ confirmMerge: true, discard: undefined });
}

export function cancelMerge(): void {
  change({ confirmMerge: undefined });
}

export function merge(): Promise<boolean> {
  return run('merge', async (id) => mergeText(await api().merge(id)));
}

/** One message asks the agent to resolve the conflict: the files and what the base changed in them (the gateway's). */
export function askToResolve(files: string[], base: string): Promise<boolean> {
  return run('resolve', async (id) => {
    const r = await api().askToResolve(id, files, newClientMessageId());
    return {
      ok: r.disposition !== 'refused',
      text:
        `Asked the agent to merge ${base} into its branch and resolve the conflict ` +
        `(${DISPOSITION[r.disposition] ?? r.disposition}). Merge again when it says it is done.`,
    };
  });
}

/** The remote by its name: its URL can be a long path on disk or carry a host's details. */
function pushText(r: PushResult): string {
  const head = r.head.slice(0, 7);
  if (r.kind === 'up-to-date') return `${r.branch} was already on ${r.remote} (${head}).`;
  return r.kind === 'created'
    ? `Pushed ${r.branch} to ${r.remote} (${head}).`
    : `Updated ${r.branch} on ${r.remote} to ${head}.`;
}

export function push(which: 'branch' | 'base' = 'branch'): Promise<boolean> {
  return run(which === 'base' ? 'push-base' : 'push', async (id) => ({
    ok: true,
    text: pushText(await api().push(id, which)),
  }));
}

export function openPullRequest(): Promise<boolean> {
  return run('pull-request', async (id) => {
    const r = await api().openPullRequest(id, {});
    return r.opened ? { ok: true, text: `Pull request opened: ${r.url}` } : { ok: false, text: r.message };
  });
}

/** The discard's confirmation: the files it would remove, ignored ones included. */
export async function askDiscard(): Promise<void> {
  const c = current();
  if (!c) return;
  try {
    change({ discard: await api().discardPreview(c.id), confirmMerge: undefined });
  } catch (err) {
    change({ outcome: { action: 'discard', ok: false, text: errorOf(err).message } });
  }
}

export function cancelDiscard(): void {
  change({ discard: undefined });
}

export function confirmDiscard(): Promise<boolean> {
  const preview = current()?.discard;
  if (!preview) return Promise.resolve(false);
  return run('discard', async (id) => {
    change({ discard: undefined });
    const r = await api().discard(id, preview.token);
    const n = r.removed.length;
    const kept = r.remaining.length ? ` ${r.remaining.length} stayed (nested repositories).` : '';
    return { ok: true, text: `Discarded ${n} uncommitted path${n === 1 ? '' : 's'}.${kept}` };
  });
}
