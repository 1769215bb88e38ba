/**
 * What can hide a marker, removed from user text before it is neutralised and wrapped, on every
 * path (stream, one-shot, tmux, the fallback model):
 * - terminal control sequences (CSI, OSC, DCS, ...) and C0 / C1 controls other than tab and
 *   newline; a CR or CRLF becomes a newline;
 * - invisible format characters: zero-width spaces, word joiners, bidi marks, embeddings,
 *   overrides and isolates, the BOM, the soft hyphen, invisible operators, Hangul fillers,
 *   Unicode tag characters ("ASCII smuggling") and every other default-ignorable code point.
 * Kept where they do visible work and cannot sit between two brackets: a zero-width joiner or
 * non-joiner between letters (Persian, Indic scripts) and a joiner inside an emoji sequence;
 * variation selectors after a letter, digit or emoji; tag characters inside a subdivision flag.
 */
import { stripControlSequences } from './control-sequences.js';

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const BLACK_FLAG = 0x1f3f4;

const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\u{FFF9}-\u{FFFB}]/u;
const VARIATION_SELECTOR = /[\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}\u{180B}-\u{180D}\u{180F}]/u;
/** Code points that attach to the one before: marks and emoji skin tones. */
const ATTACHED = /[\p{M}\p{Emoji_Modifier}]/u;
const LETTER = /\p{L}/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const VS_BASE = /[\p{L}\p{N}\p{Emoji}]/u;
/** After 🏴: tag letters or digits, then the cancel tag (England, Scotland, Wales, ...). */
const FLAG_TAGS = /^[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,6}\u{E007F}/u;

/**
 * Removes invisible format characters, keeping the few that join letters or emoji. A kept one
 * always has a letter, digit or emoji as its base, never a bracket, so it cannot split a marker.
 */
export function removeInvisible(text: string): string {
  if (!INVISIBLE.test(text)) return text;
  const cps = Array.from(text);
  let out = '';
  let last = ''; // the last code point kept
  let base = ''; // the last kept code point that others attach to
  for (let i = 0; i < cps.length; i++) {
    const ch = cps[i]!;
    if (!INVISIBLE.test(ch)) {
      out += ch;
      last = ch;
      if (!ATTACHED.test(ch)) base = ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    const next = cps[i + 1] ?? '';
    if (last.codePointAt(0) === BLACK_FLAG) {
      const tags = FLAG_TAGS.exec(cps.slice(i, i + 7).join(''));
      if (tags) {
        out += tags[0];
        i += Array.from(tags[0]).length - 1;
        last = '';
        continue;
      }
    }
    let keep = false;
    if (cp === ZWNJ || cp === ZWJ)
      keep = (LETTER.test(base) && LETTER.test(next)) || (cp === ZWJ && PICTOGRAPH.test(base) && PICTOGRAPH.test(next));
    else if (VARIATION_SELECTOR.test(ch)) keep = VS_BASE.test(base);
    if (keep) {
      out += ch;
      last = ch;
    }
  }
  return out;
}

/** User text as the agent may see it: no control sequences, no invisible characters that could hide a marker. */
export function sanitiseText(text: string): string {
  return removeInvisible(stripControlSequences(text));
}
