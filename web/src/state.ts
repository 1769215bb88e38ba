/**
 * The app's one state: the conversation list, the open conversation (reduce.ts says how events
 * change it), the connection, and the actions the views call. Views read it with useStore(), which
 * re-renders a component only when the part it selected changed.
 */
import { Api, ApiError, type EventStream, UnreachableError } from './api.js';
import {
  addLocal,
  applyEvent,
  type ConversationState,
  confirmLocal,
  emptyConversation,
  failLocal,
  mergePage,
} from './reduce.js';
import { createStore } from './store.js';
import type { Connection, ConversationItem, Project, StreamEvent } from './types.js';

export interface AppState {
  connection: Connection;
  /** Why the connection is not live, in words for the person. */
  connectionDetail?: string;
  conversations: ConversationItem[];
  /** Loaded when the person opens the archived list. */
  archived?: ConversationItem[];
  currentId?: string;
  conv?: ConversationState;
  projects?: { projects: Project[]; defaultProject?: string };
  drawerOpen: boolean;
  pairing: Array<{ name: string; qrSvg: string }>;
  /** A short-lived message about an action that failed. */
  toast?: string;
}

const PAGE = 100;
const LIST_POLL_MS = 20_000;
const PAIRING_POLL_MS = 3_000;

const store = createStore<AppState>({ connection: 'connecting', conversations: [], drawerOpen: false, pairing: [] });
let api = new Api(undefined);
let stream: EventStream | undefined;
/** Events about messages whose POST has not answered yet, applied once it has. */
let early: StreamEvent[] = [];
let localCounter = 0;
let refetchTimer: ReturnType<typeof setTimeout> | undefined;
let readTimer: ReturnType<typeof setTimeout> | undefined;
let toastTimer: ReturnType<typeof setTimeout> | undefined;

export const getState = store.get;
export const useStore = store.use;
const set = store.set;

function setConv(id: string, change: (c: ConversationState) => ConversationState): void {
  set((s) => (s.conv && s.conv.id === id ? { conv: change(s.conv) } : {}));
}

export function toast(text: string): void {
  clearTimeout(toastTimer);
  set({ toast: text });
  toastTimer = setTimeout(() => set({ toast: undefined }), 6000);
}

function explain(err: unknown): string {
  if (err instanceof UnreachableError) return 'Cannot reach the gateway. It may be stopped, or this device is offline.';
  if (err instanceof ApiError && err.status === 401)
    return 'The access token was not accepted. Open the address Rudder printed at startup (it carries the token).';
  return (err as Error).message;
}

function failed(err: unknown): void {
  if (err instanceof UnreachableError) set({ connection: 'unreachable', connectionDetail: explain(err) });
  else if (err instanceof ApiError && err.status === 401)
    set({ connection: 'unauthorized', connectionDetail: explain(err) });
  else toast(explain(err));
}

// ---- start ----

export async function boot(token: string | undefined): Promise<void> {
  api = new Api(token);
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
    scheduleRead();
  });
  window.addEventListener('online', () => stream?.nudge());
  // One project is no choice: the picker and the labels appear when there are several.
  void api.projects().then(
    (p) => set({ projects: p.projects.length > 1 ? p : undefined }),
    () => undefined,
  );
  await startList();
}

async function startList(): Promise<void> {
  try {
    const { conversations } = await api.conversations();
    set({ conversations });
    // The address names a conversation (#c=…, a link or a reload): open it, even one not started yet.
    const wanted = new URLSearchParams(location.hash.slice(1)).get('c');
    const first = wanted && /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(wanted) ? wanted : conversations[0]?.id;
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
    const { conversations } = await api.conversations();
    set((s) => ({ conversations, ...(s.connection === 'unreachable' && !stream ? { connection: 'connecting' } : {}) }));
    if (getState().archived) set({ archived: (await api.conversations(true)).conversations });
  } catch (err) {
    if (err instanceof UnreachableError) set({ connection: 'unreachable', connectionDetail: explain(err) });
  }
}

async function pollPairing(): Promise<void> {
  try {
    const { channels } = await api.channels();
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
  early = [];
  set({ currentId: id, conv: emptyConversation(id), drawerOpen: false });
  history.replaceState(null, '', `${location.pathname}${location.search}#c=${encodeURIComponent(id)}`);
  try {
    const page = await api.history(id, undefined, PAGE);
    if (getState().currentId !== id) return;
    setConv(id, (c) => mergePage(c, page, true));
  } catch (err) {
    failed(err);
    if (getState().currentId === id)
      setTimeout(() => getState().currentId === id && !getState().conv?.loaded && void openConversation(id), 3000);
    return;
  }
  stream = api.events(id, getState().conv!.lastEventId, {
    event: (e) => onEvent(id, e),
    state: (s, detail) => set({ connection: s, connectionDetail: s === 'live' ? undefined : detail }),
  });
  scheduleRead();
}

function onEvent(id: string, e: StreamEvent): void {
  if (getState().currentId !== id) return;
  let unknown: string | undefined;
  setConv(id, (c) => applyEvent(c, e, (messageId) => (unknown = messageId)));
  if (unknown) {
    // Ours, with its POST still on the way; or sent from another device: fetch the newest page.
    if ([...getState().conv!.messages.values()].some((m) => m.local)) early.push(e);
    else refetchNewest(id);
  }
  if (e.type === 'reply') scheduleRead();
}

function refetchNewest(id: string): void {
  clearTimeout(refetchTimer);
  refetchTimer = setTimeout(async () => {
    try {
      const page = await api.history(id, undefined, PAGE);
      setConv(id, (c) => mergePage(c, page, true));
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
    void api.markRead(c.id, c.lastEventId).then(
      (item) => set((s) => ({ conversations: s.conversations.map((x) => (x.id === item.id ? item : x)) })),
      () => undefined,
    );
  }, 150);
}

export async function loadOlder(): Promise<void> {
  const c = getState().conv;
  if (!c || !c.more || loadingOlder) return;
  loadingOlder = true;
  try {
    const page = await api.history(c.id, c.before, PAGE);
    setConv(c.id, (x) => mergePage(x, page, false));
  } catch (err) {
    failed(err);
  } finally {
    loadingOlder = false;
  }
}
let loadingOlder = false;

export async function send(text: string): Promise<void> {
  const c = getState().conv;
  if (!c || !text.trim()) return;
  const localId = `local-${Date.now().toString(36)}-${localCounter++}`;
  setConv(c.id, (x) => addLocal(x, localId, text, Date.now()));
  try {
    const r = await api.send(c.id, text, localId);
    setConv(c.id, (x) => confirmLocal(x, localId, r.messageId, r.disposition, r.reason));
    const mine = early.filter((e) => e.data.messageId === r.messageId);
    early = early.filter((e) => e.data.messageId !== r.messageId);
    for (const e of mine) onEvent(c.id, e);
    // Events about messages that were not ours came from another device: fetch them.
    if (early.length && ![...(getState().conv?.messages.values() ?? [])].some((m) => m.local)) {
      early = [];
      refetchNewest(c.id);
    }
    if (getState().conversations.find((x) => x.id === c.id)?.title == null) void refreshList();
  } catch (err) {
    setConv(c.id, (x) => failLocal(x, localId, explain(err)));
    failed(err);
  }
}

export async function withdraw(messageId: string): Promise<void> {
  const c = getState().conv;
  if (!c) return;
  try {
    const r = await api.withdraw(c.id, messageId);
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
    const r = await api.edit(c.id, messageId, text);
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
    await api.stop(c.id);
  } catch (err) {
    failed(err);
  }
}

export async function answerPermission(requestId: string, optionId: string): Promise<void> {
  const c = getState().conv;
  if (!c) return;
  try {
    await api.answerPermission(c.id, requestId, optionId);
  } catch (err) {
    failed(err);
  }
}

// ---- the list ----

export async function newConversation(project?: string): Promise<void> {
  try {
    const { id } = await api.createConversation(project ? { project } : {});
    await refreshList();
    await openConversation(id);
  } catch (err) {
    failed(err);
  }
}

export async function rename(id: string, title: string): Promise<void> {
  try {
    const item = await api.updateConversation(id, { title });
    set((s) => ({ conversations: s.conversations.map((x) => (x.id === id ? item : x)) }));
  } catch (err) {
    failed(err);
  }
}

export async function archive(id: string, archived: boolean): Promise<void> {
  try {
    await api.updateConversation(id, { archived });
    const { conversations } = await api.conversations();
    set({ conversations, ...(getState().archived ? { archived: (await api.conversations(true)).conversations } : {}) });
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
    set({ archived: (await api.conversations(true)).conversations });
  } catch (err) {
    failed(err);
  }
}

export function setDrawer(open: boolean): void {
  set({ drawerOpen: open });
  // The list is fresh whenever it is opened (other conversations' unread marks).
  if (open) void refreshList();
}
