/**
 * What each notification says, composed once for every device: short, because a lock screen shows
 * a few lines. A permission request's input is shown whole or not approved from there: the rules
 * of the chat prompts apply (prompt-text.ts), with a lock screen's much smaller limit. An input
 * that does not fit, or that hides characters, gets Deny (and Stop) only; Approve is on the page.
 */
import type { PermissionRequest } from '../../agents/session.js';
import { revealInvisible } from '../../security/reveal.js';
import { plainApproval, refusal } from '../permissions/options.js';
import type { PermissionOption } from '../steps/types.js';

/** Characters of tool input a notification shows; longer is cut and cannot be approved from it. */
export const NOTIFY_INPUT_LIMIT = 200;
const TITLE_CHARS = 80;
const BODY_CHARS = 240;

export interface PermissionNotice {
  title: string;
  body: string;
  /** The option Approve answers, when the whole input is shown and hides nothing. */
  approve: PermissionOption | undefined;
  deny: PermissionOption | undefined;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** `<where> · <what>`: a long conversation name is cut, never what happened (the lock screen's point). */
function titled(where: string, what: string): string {
  return `${cut(where, Math.max(TITLE_CHARS - what.length - 3, 12))} · ${what}`;
}

/** The input as a notification shows it: a command bare, then each other field as `key: value`. */
function inputText(input: Record<string, unknown>): string {
  const entries = Object.entries(input ?? {});
  entries.sort(([a], [b]) => (a === 'command' ? -1 : b === 'command' ? 1 : 0));
  return entries
    .map(([k, v]) => {
      const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
      return k === 'command' ? text : `${k}: ${text}`;
    })
    .join('\n');
}

/**
 * What a notification shows of a request's input, for its notice and for the desk's rule (surfaces.ts): whole when the
 * page could carry it (`inputCut` false) and it fits NOTIFY_INPUT_LIMIT; `hides` when it holds characters that hide or
 * reorder text. Either way short of whole and plain, it may only be refused from a notification.
 */
export function notificationShows(req: PermissionRequest, inputCut: boolean) {
  const shown = revealInvisible(inputText(req.input));
  const whole = !inputCut && shown.text.length <= NOTIFY_INPUT_LIMIT;
  const why = whole
    ? 'This input hides characters, so it cannot be approved from a notification. Open Rudder to approve it.'
    : `This input is ${shown.text.length} characters, too long for a notification to show whole, so it cannot be ` +
      'approved from one. Open Rudder to read it all and approve.';
  return { shown, whole, hides: shown.changed, refusal: why };
}

export function permissionNotice(conversation: string, req: PermissionRequest, inputCut: boolean): PermissionNotice {
  const { shown, whole } = notificationShows(req, inputCut);
  const lines = [whole ? shown.text : `${shown.text.slice(0, NOTIFY_INPUT_LIMIT)}…`];
  if (!whole) lines.push(`(${shown.text.length} characters: open Rudder to read it all and approve.)`);
  else if (shown.changed) lines.push('(It hides characters, shown as ⟨U+…⟩: approve it on the page.)');
  return {
    title: titled(conversation, `${req.toolName} waits for you`),
    body: lines.join('\n'),
    approve: whole && !shown.changed ? plainApproval(req.options) : undefined,
    deny: refusal(req.options),
  };
}

export function turnDoneNotice(conversation: string, durationMs: number, reply: string | undefined) {
  return {
    title: titled(conversation, `done in ${duration(durationMs)}`),
    body: cut(oneLine(reply ?? '') || 'The turn ended.', BODY_CHARS),
  };
}

/** A job's news: a scheduled run's answer, or a webhook's event for the agent; `from` is `schedule:<name>`... */
export function jobNotice(from: string, what: string, text: string) {
  return { title: titled(from, what), body: cut(oneLine(text) || what, BODY_CHARS) };
}

export function failedNotice(conversation: string, text: string) {
  return { title: titled(conversation, 'failed'), body: cut(oneLine(text), BODY_CHARS) };
}

export function rateLimitNotice(conversation: string, messages: number) {
  return {
    title: titled(conversation, 'running again'),
    body:
      messages === 1
        ? 'The rate limit is over: your held message runs now.'
        : `The rate limit is over: your ${messages} held messages run now.`,
  };
}

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
