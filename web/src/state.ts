/**
 * The app's start and the one module the views import: it boots the client, opens the list and the
 * conversation the address names, and re-exports the actions of conversation.ts, list.ts and
 * outbox.ts. The state itself lives in app-store.ts.
 */
import { Api } from './api.js';
import { api, failed, getState, set, setApi } from './app-store.js';
import { nudge, openConversation, scheduleRead } from './conversation.js';
import { loadDraft } from './device.js';
import { refreshInChats } from './in-chats.js';
import { newConversation } from './list.js';
import { markWaiting, refreshList } from './list-refresh.js';
import { flush, withUnsent } from './outbox.js';
import { startPresence } from './presence.js';
import { followNotificationTaps, initPush } from './push.js';
import { emptyConversation } from './reduce.js';

export { type AppState, getState, toast, useStore } from './app-store.js';
export {
  answerPermission,
  edit,
  editUnsent,
  loadOlder,
  moveToProject,
  openConversation,
  send,
  sendVoice,
  setDraft,
  stop,
  withdraw,
} from './conversation.js';
export { answerInChat } from './in-chats.js';
export { archive, newConversation, rename, setDrawer, setProjectFilter, showArchived } from './list.js';
export { refreshList } from './list-refresh.js';
export { discard, retry } from './outbox.js';
export { disablePush, enablePush, setMuted } from './push.js';
export { toggleChanges } from './review.js';
export { toggleSchedules } from './schedules.js';

const LIST_POLL_MS = 20_000;
/** What the chats ask of the page (a pairing code, a permission request) is looked for this often. */
const CHATS_POLL_MS = 3_000;

export async function boot(token: string | undefined): Promise<void> {
  setApi(new Api(token));
  if (!token)
    return set({
      connection: 'unauthorized',
      connectionDetail: 'Open the address Rudder printed at startup: it carries the access token (#token=…).',
    });
  void pollPairing();
  setInterval(() => void pollPairing(), CHATS_POLL_MS);
  void refreshInChats();
  setInterval(() => void refreshInChats(), CHATS_POLL_MS);
  setInterval(() => void refreshList(), LIST_POLL_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible') return;
    nudge();
    void refreshList();
    void refreshInChats();
    void flush();
    scheduleRead();
  });
  window.addEventListener('online', () => {
    nudge();
    void flush();
  });
  startPresence();
  followNotificationTaps((id) => void openConversation(id));
  void initPush();
  // The record and play buttons appear only where this gateway has the commands for them.
  void api()
    .speech()
    .then(
      (speech) => set({ speech }),
      () => undefined,
    );
  // One project is no choice: the picker and the labels appear when there are several.
  void api()
    .projects()
    .then(
      (p) =>
        set({
          projects: p.projects.length > 1 ? p : undefined,
          projectNodes: Object.fromEntries(p.projects.flatMap((x) => (x.node ? [[x.name, x.node]] : []))),
        }),
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
    markWaiting(conversations);
    // The address names a conversation: open it, even one not started yet.
    const first = wanted ?? conversations[0]?.id;
    // Opened by the page, not the person: a drawer opened while the list loaded stays open.
    if (first) return openConversation(first, undefined, { keepDrawer: true });
    await newConversation(undefined, { keepDrawer: true });
  } catch (err) {
    failed(err);
    // Try again: the gateway may be starting, or the network coming back.
    setTimeout(() => void startList(), 3000);
  }
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
