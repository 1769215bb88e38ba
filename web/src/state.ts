/**
 * The app's actions: the conversation list, the open conversation (reduce.ts says how events
 * change it) and its event stream, and what the views call. The state itself lives in
 * app-store.ts; what this device sends, in outbox.ts.
 */
import { Api, type EventStream, UnreachableError } from './api.js';
import { latestTurns } from './api-extra.js';
import { api, explain, failed, getState, set, setApi, setConv } from './app-store.js';
import { loadDraft, saveDraft } from './device.js';
import { flush, hold, outboxHooks, posting, send as sendMessage, takeBack, withUnsent } from './outbox.js';
import { applyEvent, emptyConversation, mergePage } from './reduce.js';
import { waitsForYou } from './timeline.js';
import type { StreamEvent } from './types.js';
import type { ListItem } from './wire-extra.js';

export { type AppState, getState, toast, useStore } from './app-store.js';
export { discard, retry } from './outbox.js';

const PAGE = 100;
const LIST_POLL_MS = 20_000;
const PAIRING_POLL_MS = 3_000;
/** The most recently active conversations whose newest turn is checked for a waiting permission request. */
const WAITING_CHECKS = 30;

let stream: EventStream | undefined;
let refetchTimer: ReturnType<typeof setTimeout> | undefined;
let readTimer: ReturnType<typeof setTimeout> | undefined;
/** The last event id at which each conversation was checked for a waiting request. */
const checkedAt = new Map<string, number>();

outboxHooks({
  replay: (id, e) => onEvent(id, e),
  refetch: (id) => refetchNewest(id),
  sent: (id) => {
    if (getState().conversations.find((x) => x.id === id)?.title == null) void refreshList();
  },
});

// ---- start ----

export async function boot(token: string | undefined): Promise<void> {
  setApi(new Api(token));
  if (!token)
    return set({
      connection: 'unauthorized',
      connectionDetail: 'Open the address Rudder printed at startup: it carries the access token (#token=…).',
    });
  void pollPairing();
  setInterval(() => void pollPairing(), PAIRING_POLL_MS);
  setInterval(() => void refreshList(), LIST_POLL_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible') return;
    stream?.nudge();
    void refreshList();
    void flush();
    scheduleRead();
  });
  window.addEventListener('online', () => {
    stream?.nudge();
    void flush();
  });
  // One project is no choice: the picker and the labels appear when there are several.
  void api()
    .projects()
    .then(
      (p) => set({ projects: p.projects.length > 1 ? p : undefined, allProjects: p.projects }),
      () => undefined,
    );
  await startList();
}

/** The conversation the address names (#c=…, a link or a reload), if it is a valid id. */
function wantedConversation(): string | undefined {
  const wanted = new URLSearchParams(location.hash.slice(1)).get('c');
  return wanted && /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(wanted) ? wanted : undefined;
}

async function startList(): Promise<void> {
  // Before the gateway answers (it may not, offline): what this device kept of that conversation shows at once.
  const wanted = wantedConversation();
  if (wanted && !getState().currentId)
    set({ currentId: wanted, conv: withUnsent(emptyConversation(wanted)), draft: loadDraft(wanted) });
  try {
    const { conversations } = await api().conversations();
    set({ conversations });
    void checkWaiting(conversations);
    // The address names a conversation: open it, even one not started yet.
    const first = wanted ?? conversations[0]?.id;
    if (first) return openConversation(first);
    await newConversation();
  } catch (err) {
    failed(err);
    // Try again: the gateway may be starting, or the network coming back.
    setTimeout(() => void startList(), 3000);
  }
}

export async function refreshList(): Promise<void> {
  try {
    const { conversations } = await api().conversations();
    set((s) => ({ conversations, ...(s.connection === 'unreachable' && !stream ? { connection: 'connecting' } : {}) }));
    void checkWaiting(conversations);
    if (getState().archived) set({ archived: (await api().conversations(true)).conversations });
  } catch (err) {
    if (err instanceof UnreachableError) set({ connection: 'unreachable', connectionDetail: explain(err) });
  }
}

/**
 * Which conversations wait for the person: the list says so when the gateway sends `waiting`; else the newest turn of
 * each one whose events moved since it was last looked at (the open one is followed live).
 */
async function checkWaiting(list: ListItem[]): Promise<void> {
  for (const c of list.slice(0, WAITING_CHECKS)) {
    if (c.id === getState().currentId) continue;
    if (typeof c.waiting === 'boolean') {
      setWaiting(c.id, c.waiting);
      continue;
    }
    if (checkedAt.get(c.id) === c.lastEventId) continue;
    checkedAt.set(c.id, c.lastEventId);
    if (!c.lastEventId) continue;
    try {
      setWaiting(c.id, waitsForYou((await latestTurns(api(), c.id)).turns));
    } catch {
      checkedAt.delete(c.id);
      return;
    }
  }
}

function setWaiting(id: string, waiting: boolean): void {
  if (!!getState().waiting[id] !== waiting) set((s) => ({ waiting: { ...s.waiting, [id]: waiting } }));
}

async function pollPairing(): Promise<void> {
  try {
    const { channels } = await api().channels();
    const pairing = channels.filter((c) => c.qrSvg).map((c) => ({ name: c.name, qrSvg: c.qrSvg! }));
    if (JSON.stringify(pairing) !== JSON.stringify(getState().pairing)) set({ pairing });
  } catch {
    // The banner already says when the gateway is unreachable.
  }
}

// ---- one conversation ----

export async function openConversation(id: string): Promise<void> {
  stream?.close();
  stream = undefined;
  const left = getState().currentId;
  if (left && left !== id) checkedAt.delete(left);
  set({ currentId: id, conv: withUnsent(emptyConversation(id)), drawerOpen: false, draft: loadDraft(id) });
  history.replaceState(null, '', `${location.pathname}${location.search}#c=${encodeURIComponent(id)}`);
  try {
    const page = await api().history(id, undefined, PAGE);
    if (getState().currentId !== id) return;
    setConv(id, (c) => mergePage(c, page, true));
    followWaiting(id);
  } catch (err) {
    failed(err);
    if (getState().currentId === id)
      setTimeout(() => getState().currentId === id && !getState().conv?.loaded && void openConversation(id), 3000);
    return;
  }
  stream = api().events(id, getState().conv!.lastEventId, {
    event: (e) => onEvent(id, e),
    state: (s, detail) => {
      set({ connection: s, connectionDetail: s === 'live' ? undefined : detail });
      // Back in touch: what waited on this device goes out now.
      if (s === 'live') void flush();
    },
  });
  scheduleRead();
}

function followWaiting(id: string): void {
  const c = getState().conv;
  if (c?.id === id) setWaiting(id, waitsForYou(c.turns.values()));
}

function onEvent(id: string, e: StreamEvent): void {
  if (getState().currentId !== id) return;
  let unknown: string | undefined;
  setConv(id, (c) => applyEvent(c, e, (messageId) => (unknown = messageId)));
  if (unknown) {
    // Ours, with its POST still on the way; or sent from another device: fetch the newest page.
    if (posting()) hold(id, e);
    else refetchNewest(id);
  }
  if (e.type === 'step' || e.type === 'turn') followWaiting(id);
  if (e.type === 'reply') scheduleRead();
  // A command's answer may have moved the conversation (/project) or renamed it.
  if (e.type === 'reply' && e.data.kind === 'notice') void refreshList();
}

function refetchNewest(id: string): void {
  clearTimeout(refetchTimer);
  refetchTimer = setTimeout(async () => {
    try {
      const page = await api().history(id, undefined, PAGE);
      setConv(id, (c) => mergePage(c, page, true));
      followWaiting(id);
    } catch (err) {
      failed(err);
    }
  }, 150);
}

/** Tells the gateway this conversation was seen up to its newest event (when the page is in view). */
function scheduleRead(): void {
  clearTimeout(readTimer);
  readTimer = setTimeout(() => {
    const c = getState().conv;
    if (!c || document.visibilityState !== 'visible' || !c.lastEventId) return;
    void api()
      .markRead(c.id, c.lastEventId)
      .then(
        (item) => set((s) => ({ conversations: s.conversations.map((x) => (x.id === item.id ? item : x)) })),
        () => undefined,
      );
  }, 150);
}

let loadingOlder = false;
export async function loadOlder(): Promise<void> {
  const c = getState().conv;
  if (!c?.more || loadingOlder) return;
  loadingOlder = true;
  try {
    const page = await api().history(c.id, c.before, PAGE);
    setConv(c.id, (x) => mergePage(x, page, false));
  } catch (err) {
    failed(err);
  } finally {
    loadingOlder = false;
  }
}

// ---- writing ----

/** The input's text, kept on the device as the open conversation's draft. */
export function setDraft(text: string): void {
  set({ draft: text });
  const id = getState().currentId;
  if (id) saveDraft(id, text);
}

export function send(text: string): void {
  if (!getState().conv || !text.trim()) return;
  sendMessage(text);
}

/** Edit an unsent message: its text goes back into the input, after what is there. */
export function editUnsent(localId: string): void {
  const text = takeBack(localId);
  if (text === undefined) return;
  const draft = getState().draft;
  setDraft(draft.trim() ? `${draft}\n${text}` : text);
  set((s) => ({ focusSeq: s.focusSeq + 1 }));
}

/** Moves the open conversation to another project: the /project command, sent as any message is. */
export function moveToProject(project: string): void {
  send(`/project ${project}`);
}

export async function withdraw(messageId: string): Promise<void> {
  const c = getState().conv;
  if (!c) return;
  try {
    const r = await api().withdraw(c.id, messageId);
    const data = { messageId, state: r.state, at: Date.now() };
    setConv(c.id, (x) => applyEvent(x, { type: 'message', data }));
  } catch (err) {
    failed(err);
  }
}

export async function edit(messageId: string, text: string): Promise<boolean> {
  const c = getState().conv;
  if (!c) return false;
  try {
    const r = await api().edit(c.id, messageId, text);
    const data = { messageId, state: r.state, text: r.text, at: Date.now() };
    setConv(c.id, (x) => applyEvent(x, { type: 'message', data }));
    return true;
  } catch (err) {
    failed(err);
    return false;
  }
}

export async function stop(): Promise<void> {
  const c = getState().conv;
  if (!c) return;
  try {
    await api().stop(c.id);
  } catch (err) {
    failed(err);
  }
}

export async function answerPermission(requestId: string, optionId: string): Promise<void> {
  const c = getState().conv;
  if (!c) return;
  try {
    await api().answerPermission(c.id, requestId, optionId);
  } catch (err) {
    failed(err);
  }
}

// ---- the list ----

export async function newConversation(project?: string): Promise<void> {
  try {
    const { id } = await api().createConversation(project ? { project } : {});
    await refreshList();
    await openConversation(id);
  } catch (err) {
    failed(err);
  }
}

export async function rename(id: string, title: string): Promise<void> {
  try {
    const item = await api().updateConversation(id, { title });
    set((s) => ({ conversations: s.conversations.map((x) => (x.id === id ? item : x)) }));
  } catch (err) {
    failed(err);
  }
}

export async function archive(id: string, archived: boolean): Promise<void> {
  try {
    await api().updateConversation(id, { archived });
    const { conversations } = await api().conversations();
    set({
      conversations,
      ...(getState().archived ? { archived: (await api().conversations(true)).conversations } : {}),
    });
    if (archived && getState().currentId === id) {
      const next = conversations[0];
      if (next) await openConversation(next.id);
      else await newConversation();
    }
  } catch (err) {
    failed(err);
  }
}

export async function showArchived(show: boolean): Promise<void> {
  if (!show) return set({ archived: undefined });
  try {
    set({ archived: (await api().conversations(true)).conversations });
  } catch (err) {
    failed(err);
  }
}

export function setProjectFilter(project: string | undefined): void {
  set({ projectFilter: project });
}

export function setDrawer(open: boolean): void {
  set({ drawerOpen: open });
  // The list is fresh whenever it is opened (other conversations' unread marks).
  if (open) void refreshList();
}
