/**
 * The Schedules view: each schedule with its next runs and its newest runs (each opens the conversation it ran
 * in), and Run now. Read when it opens, after a run now, and every few seconds while it stays open.
 */
import { api, failed, getState, set, toast } from './app-store.js';
import { openConversation } from './conversation.js';

const POLL_MS = 5_000;
let timer: ReturnType<typeof setInterval> | undefined;

function stopPolling(): void {
  clearInterval(timer);
  timer = undefined;
}

export function toggleSchedules(open = !getState().schedules?.open): void {
  const had = getState().schedules;
  set({ schedules: { runs: {}, ...had, open } });
  stopPolling();
  if (!open) return;
  void refreshSchedules();
  timer = setInterval(() => void refreshSchedules(), POLL_MS);
}

async function refreshSchedules(): Promise<void> {
  // Closed by opening a conversation: the polling stops with it.
  if (!getState().schedules?.open) return stopPolling();
  try {
    const list = await api().schedules();
    const pages = await Promise.all(list.schedules.map((s) => api().scheduleRuns(s.name, 10)));
    const runs = Object.fromEntries(list.schedules.map((s, i) => [s.name, pages[i]!.runs]));
    if (getState().schedules?.open) set({ schedules: { open: true, list, runs } });
  } catch (err) {
    failed(err);
  }
}

export async function runScheduleNow(name: string): Promise<void> {
  try {
    const r = await api().runSchedule(name);
    toast(r.text);
  } catch (err) {
    failed(err);
  }
  await refreshSchedules();
}

/** A run's page conversation, opened in place of the view. */
export function openRun(pageKey: string): void {
  toggleSchedules(false);
  void openConversation(pageKey);
}
