/**
 * What every text a person sends must be, checked in one place for every way in (a chat message, the
 * page's POST, an edit of a waiting message): not empty, no NUL (no process argument or stream to
 * the agent can carry one), at most MAX_TEXT_BYTES.
 */

/** Text longer than this is refused, with the reason, instead of being passed on. */
export const MAX_TEXT_BYTES = 100 * 1024;

export type TextProblem = 'empty' | 'nul-character' | 'text-too-long';

export function textProblem(text: string): TextProblem | undefined {
  if (!text.trim()) return 'empty';
  if (text.includes('\0')) return 'nul-character';
  if (Buffer.byteLength(text, 'utf8') > MAX_TEXT_BYTES) return 'text-too-long';
  return undefined;
}

/** A text that is passed on, not judged (a sender's name, a quote, a job's text): each NUL replaced. */
export const withoutNul = (s: string): string => s.replaceAll('\0', '\uFFFD');

/** What a chat is told when its message is refused for its text. */
export const TEXT_REFUSAL: Record<Exclude<TextProblem, 'empty'>, string> = {
  'nul-character':
    'That message contains a NUL character (\\0), which cannot be passed to the agent; it was not passed on. ' +
    'Remove the character and send it again.',
  'text-too-long':
    `That message is longer than ${MAX_TEXT_BYTES / 1024} KB and was not passed on. ` +
    'Send it as a file, or in parts.',
};
