/**
 * The app's one state and the client it talks through: state.ts (the list, the open conversation,
 * its events) and outbox.ts (what this device sends) both change it here. Views read it with
 * useStore(), which re-renders a component only when the part it selected changed.
 */

import type { RunView, ScheduleList } from '../../src/http/wire.js';
import { Api, ApiError, UnreachableError } from './api.js';
import type { ConversationState } from './reduce.js';
import type { ChangesState } from './review-model.js';
import { createStore } from './store.js';
import type { Connection, ConversationItem, Project, RunningList, SpeechInfo, WaitingRequest } from './types.js';

/**
 * Notifications on this device: not possible here (no service worker or Push API: an http:// address from
 * another device, an old browser), off on the gateway (push.enabled), off, blocked in the browser's settings,
 * on, or being changed.
 */
export type PushStatus = 'unsupported' | 'gateway-off' | 'off' | 'blocked' | 'on' | 'working';

export interface AppState {
  connection: Connection;
  /** Why the connection is not live, in words for the person. */
  connectionDetail?: string;
  conversations: ConversationItem[];
  /** Loaded when the person opens the archived list. */
  archived?: ConversationItem[];
  currentId?: string;
  conv?: ConversationState;
  /** The projects to choose from: set only when there are several (one is no choice). */
  projects?: { projects: Project[]; defaultProject?: string };
  /** The node each project on another machine lives on, by project: known with one project as with several. */
  projectNodes?: Record<string, string>;
  /** The list shows only this project's conversations. */
  projectFilter?: string;
  /** Conversations with a permission request waiting for the person, by id. */
  waiting: Record<string, boolean>;
  drawerOpen: boolean;
  pairing: Array<{ name: string; qrSvg: string }>;
  /** Permission requests waiting in the chats' conversations: the page can answer them too. */
  inChats: WaitingRequest[];
  /** The open conversation's unsent text in the input (kept on the device as its draft). */
  draft: string;
  /** Counts this device's sends: the timeline brings each one into view. */
  sentSeq: number;
  /** Counts the times text was put back into the input for the person to go on with (Edit on an unsent one). */
  focusSeq: number;
  /** The Schedules view (schedules.ts). */
  schedules?: SchedulesState;
  /** The new conversation's "Running now" (running.ts): what runs in its project's directory. */
  running?: RunningState;
  /** The open conversation's Changes view (review.ts), once opened. */
  changes?: ChangesState;
  /** A short-lived message about an action that failed. */
  toast?: string;
  /** Notifications on this device; undefined while it is being found out. */
  push?: PushStatus;
  /** Voice on this gateway: the record button (stt.command), play buttons on replies (tts.command). */
  speech: SpeechInfo;
}

/** "Running now" for one project: the list once read, a pane being attached, a refusal shown beside its pane. */
export interface RunningState {
  project: string;
  list?: RunningList;
  /** The list could not be read: the gateway's words. */
  error?: string;
  /** The pane (tmux id) whose "Continue here" is under way. */
  attaching?: string;
  /** Why "Continue here" on this pane was refused. */
  refused?: { paneId: string; text: string };
}

/** The Schedules view: the schedules, each one's newest runs, the form and what the last action answered. */
export interface SchedulesState {
  open: boolean;
  list?: ScheduleList;
  runs: Record<string, RunView[]>;
  /** The projects a schedule may work in (the picker shows them even when there is one), and the default. */
  projects?: { names: string[]; defaultProject?: string };
  /** The form, while open: a new schedule, or the named one to change; the gateway's refusal of the last save. */
  form?: { edit?: string; saving?: boolean; error?: string };
  /** The schedule an action runs on: its buttons wait. */
  acting?: string;
  /** What the last action came to, in the gateway's words (a save's cron line and next three runs). */
  answer?: { ok: boolean; text: string };
}

const store = createStore<AppState>({
  connection: 'connecting',
  conversations: [],
  drawerOpen: false,
  pairing: [],
  inChats: [],
  waiting: {},
  draft: '',
  sentSeq: 0,
  focusSeq: 0,
  speech: { transcribe: false, speak: false },
});

export const getState = store.get;
export const useStore = store.use;
export const set = store.set;
export const onChange = store.subscribe;

let client = new Api(undefined);
export const api = (): Api => client;
export function setApi(next: Api): void {
  client = next;
}

export function setConv(id: string, change: (c: ConversationState) => ConversationState): void {
  set((s) => (s.conv && s.conv.id === id ? { conv: change(s.conv) } : {}));
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;
export function toast(text: string): void {
  clearTimeout(toastTimer);
  set({ toast: text });
  toastTimer = setTimeout(() => set({ toast: undefined }), 6000);
}

/** The gateway may answer later: a network failure, or a 502–504 from a proxy in front of it while it restarts. */
export function transient(err: unknown): boolean {
  return err instanceof UnreachableError || (err instanceof ApiError && err.status >= 502 && err.status <= 504);
}

export function explain(err: unknown): string {
  if (err instanceof UnreachableError) return 'Cannot reach the gateway. It may be stopped, or this device is offline.';
  if (err instanceof ApiError && err.status === 401)
    return 'The access token was not accepted. Open the address Rudder printed at startup (it carries the token).';
  return (err as Error).message;
}

export function failed(err: unknown): void {
  if (err instanceof UnreachableError) set({ connection: 'unreachable', connectionDetail: explain(err) });
  else if (err instanceof ApiError && err.status === 401)
    set({ connection: 'unauthorized', connectionDetail: explain(err) });
  else toast(explain(err));
}
