/**
 * The surfaces an answer to a permission request comes from, and what each showed of the request. The
 * desk lets a surface approve only an input it showed whole and plain (rules.ts); each surface's own
 * composition says what it shows, so what a surface offers and what the desk takes from it agree:
 *   page: the timeline's card (its own conversations, and the chats' requests it lists) carries every
 *         field up to STEP_LIMITS.permissionInputField, and draws hidden characters as escapes;
 *   chat: the prompt (prompt-text.ts) shows up to PROMPT_INPUT_LIMIT characters, and cannot make hidden
 *         characters plain;
 *   notification: a lock screen (notify/compose.ts) shows what the page carries, up to NOTIFY_INPUT_LIMIT.
 */
import type { PermissionRequest } from '../../agents/session.js';
import { notificationShows } from '../notify/compose.js';
import { boundInput } from '../steps/summarize.js';
import { STEP_LIMITS } from '../steps/types.js';
import { chatShows } from './prompt-text.js';

export type AnswerSurface = 'page' | 'chat' | 'notification';

/** What a surface showed of a request's input. */
export interface Shown {
  /** Every character of it. */
  whole: boolean;
  /** It holds characters that hide or reorder text, which this surface cannot show plainly. */
  hides: boolean;
  /** What the person is told when an approval from here is refused. */
  refusal: string;
}

/** Whether the page's card carries the whole input (a step's `inputCut` says the same). */
export function pageCut(req: PermissionRequest): boolean {
  return boundInput(req.input, STEP_LIMITS.permissionInputField).cut;
}

export const SURFACES: Record<AnswerSurface, (req: PermissionRequest) => Shown> = {
  page: (req) => ({
    whole: !pageCut(req),
    hides: false,
    refusal:
      "Part of this request's input was too long to show, so it cannot be approved here; deny it, or answer in " +
      "the agent's terminal.",
  }),
  chat: chatShows,
  notification: (req) => notificationShows(req, pageCut(req)),
};
