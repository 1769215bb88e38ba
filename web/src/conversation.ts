/**
 * The open conversation: its history (reduce.ts says how a page and each event change it), its
 * event stream, and what the views do in it. What this device sends goes through outbox.ts.
 */
import type { EventStream } from './api.js';
import { api, failed, getState, set, setConv } from './app-store.js';
import { loadDraft, newClientMessageId, saveDraft } from './device.js';
import { refreshList, setWaiting } from './list-refresh.js';
import { flush, hold, outboxHooks, posting, send as sendMessage, takeBack, withUnsent } from './outbox.js';
import { applyEvent, emptyConversation, mergePage } from './reduce.js';
import { followChanges, forgetChanges } from './review.js';
import { waitsForYou } from './timeline.js';
import type { StreamEvent } from './types.js';

const PAGE = 100;

let stream: EventStream | undefined;
let refetchTimer: ReturnType<typeof setTimeout> | undefined;
let readTimer: ReturnType<typeof setTimeout> | undefined;

outboxHooks({
  replay: (id, e) => onEvent(id, e),
  refetch: (id) => refetchNewest(id),
  sent: (id) => {
    if (getState().conversations.find((x) => x.id === id)?.title == null) void refreshList();
  },
});

/** The page came back to the foreground or online: the stream checks it is still alive. */
export function nudge(): void {
  stream?.nudge();
}

/** Leaves the open conversation (a new one is being made): what is typed meanwhile belongs to the new one. */
export function closeConversation(o: Opening = {}): void {
  stream?.close();
  stream = undefined;
  forgetChanges();
  set({ currentId: undefined, conv: undefined, draft: '', ...drawerAfter(o) });
}

/** keepDrawer: the page opens it on its own (at start), so a drawer the person opened meanwhile stays open. */
export interface Opening {
  keepDrawer?: boolean;
}

/** Opening a conversation closes the drawer, unless the page (not the person) opens it. */
const drawerAfter = (o: Opening) => (o.keepDrawer ? {} : { drawerOpen: false });

/** Opens a conversation; `carry` is text typed while none was open, added to its draft. */
export async function openConversation(id: string, carry?: string, o: Opening = {}): Promise<void> {
  stream?.close();
  stream = undefined;
  if (getState().changes?.id !== id) forgetChanges();
  // A conversation opened from the list takes the place of the Schedules view.
  const schedules = getState().schedules;
  if (schedules?.open) set({ schedules: { ...schedules, open: false } });
  const own = loadDraft(id);
  const draft = carry?.trim() ? (own.trim() ? `${own}\n${carry}` : carry) : own;
  if (draft !== own) saveDraft(id, draft);
  set({
    currentId: id,
    conv: withUnsent(emptyConversation(id)),
    draft,
    ...drawerAfter(o),
  });
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
  followChanges(id, e);
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
export function scheduleRead(): void {
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

/**
 * A recording from the composer: sent as a voice note (the gateway transcribes it like a chat's); it appears once the
 * gateway has it. Not kept on the device when the gateway cannot be reached: the person is told, and records again.
 */
export async function sendVoice(audio: Blob): Promise<void> {
  const c = getState().conv;
  if (!c) return;
  set((s) => ({ sentSeq: s.sentSeq + 1 }));
  try {
    await api().sendVoice(c.id, audio, newClientMessageId());
    refetchNewest(c.id);
  } catch (err) {
    failed(err);
  }
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
