/**
 * The Schedules view: each schedule with its next runs and its newest runs (each opens the conversation it ran
 * in); Run now, pause and resume; a schedule made, changed or removed through the form. Read when it opens, after
 * each action, and every few seconds while it stays open. What an action came to is the gateway's own text.
 */
import type { ScheduleBody, ScheduleChange } from '../../src/http/wire.js';
import { ApiError, UnreachableError } from './api.js';
import { api, explain, failed, getState, type SchedulesState, set } from './app-store.js';
import { openConversation } from './conversation.js';

const POLL_MS = 5_000;
let timer: ReturnType<typeof setInterval> | undefined;

function stopPolling(): void {
  clearInterval(timer);
  timer = undefined;
}

/** Changes the open view's state; nothing once it is closed. */
function patch(change: Partial<SchedulesState>): void {
  set((s) => (s.schedules?.open ? { schedules: { ...s.schedules, ...change } } : {}));
}

/** The gateway's words for a failed action; a lost gateway or token also shows as the connection's state. */
function refusal(err: unknown): string {
  if (err instanceof UnreachableError || (err instanceof ApiError && err.status === 401)) failed(err);
  return explain(err);
}

export function toggleSchedules(open = !getState().schedules?.open): void {
  const had = getState().schedules;
  // A form or an answer left from before does not come back with the view.
  set({ schedules: { runs: {}, ...had, open, form: undefined, answer: undefined, acting: undefined } });
  stopPolling();
  if (!open) return;
  void refreshSchedules();
  void loadProjects();
  timer = setInterval(() => void refreshSchedules(), POLL_MS);
}

async function refreshSchedules(): Promise<void> {
  // Closed by opening a conversation: the polling stops with it.
  if (!getState().schedules?.open) return stopPolling();
  try {
    const list = await api().schedules();
    const pages = await Promise.all(list.schedules.map((s) => api().scheduleRuns(s.name, 10)));
    const runs = Object.fromEntries(list.schedules.map((s, i) => [s.name, pages[i]!.runs]));
    patch({ list, runs });
  } catch (err) {
    failed(err);
  }
}

/** The form's project picker lists every project, also the one a gateway without `projects` has. */
async function loadProjects(): Promise<void> {
  try {
    const p = await api().projects();
    patch({ projects: { names: p.projects.map((x) => x.name), defaultProject: p.defaultProject } });
  } catch {
    // The picker then offers the schedule's own project only; the gateway still checks what is sent.
  }
}

/** Runs an action on one schedule and shows what it came to; one at a time per schedule. */
async function act(name: string, action: () => Promise<ScheduleChange>): Promise<void> {
  if (getState().schedules?.acting === name) return;
  patch({ acting: name, answer: undefined });
  try {
    const r = await action();
    patch({ answer: { ok: r.ok, text: r.text } });
  } catch (err) {
    patch({ answer: { ok: false, text: refusal(err) } });
  }
  patch({ acting: undefined });
  await refreshSchedules();
}

export function runScheduleNow(name: string): Promise<void> {
  return act(name, () => api().runSchedule(name));
}

export function pauseSchedule(name: string, paused: boolean): Promise<void> {
  return act(name, () => api().pauseSchedule(name, paused));
}

export function removeSchedule(name: string): Promise<void> {
  return act(name, () => api().removeSchedule(name));
}

/** Opens the form: empty for a new schedule, or filled with the named one. */
export function openScheduleForm(edit?: string): void {
  patch({ form: { edit }, answer: undefined });
}

export function closeScheduleForm(): void {
  patch({ form: undefined });
}

/**
 * Saves the form's schedule. Saved: the form closes and the answer (its cron line, next three runs) shows. Refused:
 * the gateway's reason shows by the form, which keeps what was typed.
 */
export async function saveSchedule(name: string, body: ScheduleBody): Promise<void> {
  const form = getState().schedules?.form;
  if (!form || form.saving) return;
  patch({ form: { ...form, saving: true, error: undefined } });
  try {
    const r = await api().putSchedule(name, body);
    patch({ form: undefined, answer: { ok: r.ok, text: r.text } });
  } catch (err) {
    const error = refusal(err);
    // Cancelled meanwhile: the form stays closed.
    const still = getState().schedules?.form;
    if (still) patch({ form: { ...still, saving: false, error } });
    return;
  }
  await refreshSchedules();
}

/** A run's page conversation, opened in place of the view. */
export function openRun(pageKey: string): void {
  toggleSchedules(false);
  void openConversation(pageKey);
}
