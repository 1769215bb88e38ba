/**
 * Heartbeat schedules (`"quiet": true`): the prompt asks the agent to answer one fixed word when all is well, and
 * a reply that is only that word is never delivered; the run shows as "quiet".
 *
 * "Only that word", read the way a model writes it: surrounding space, case, Markdown emphasis or code marks,
 * quotes and closing punctuation do not matter, and the word's underscores may be spaces or hyphens
 * ("Nothing to report.", "**NOTHING_TO_REPORT**", "`nothing-to-report`!"). Anything more — a second word, a
 * sentence around it, a line after it — is a reply and is delivered: a false "quiet" hides news, a false
 * "not quiet" only costs one message.
 */

export const QUIET_WORD = 'NOTHING_TO_REPORT';

/** Appended to a quiet schedule's prompt. */
export function quietPrompt(prompt: string): string {
  return (
    `${prompt.trimEnd()}\n\n` +
    `If everything is as it should be and there is nothing the person needs to know, answer with exactly ` +
    `${QUIET_WORD} and nothing else. Otherwise answer normally, without that word.`
  );
}

/** Marks a model puts around a bare word: Markdown emphasis and code, quotes, brackets. */
const WRAPPERS = /^[\s*_`~"'“”‘’«»()[\]]+|[\s*_`~"'“”‘’«»()[\]]+$/gu;
/** Punctuation that may close the word. */
const CLOSERS = /[.!。！:;,]+$/u;

/** The reply as a word: folded case, word separators as one underscore, nothing around it. */
function bareWord(text: string): string {
  let s = text.normalize('NFKC');
  for (let before = ''; before !== s; ) {
    before = s;
    s = s.replace(WRAPPERS, '').replace(CLOSERS, '');
  }
  return s.toUpperCase().replace(/[\s_-]+/g, '_');
}

/** True when the reply says only the quiet word. */
export function isQuietReply(reply: string): boolean {
  return bareWord(reply) === QUIET_WORD;
}
