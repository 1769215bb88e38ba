/**
 * Shows what a person is asked to approve as it will run: characters that reorder or hide text
 * (Trojan Source, CVE-2021-42574) become visible escapes like ⟨U+2067⟩. User text is stripped of
 * them before it reaches the agent (sanitise.ts); tool input comes from the model, which a prompt
 * injection can steer, and runs as written, so it is shown, not cleaned.
 *
 * Revealed:
 * - bidi controls: U+202A–202E (embeddings, overrides, PDF), U+2066–2069 (isolates), U+200E/F
 *   (LRM/RLM), U+061C (ALM);
 * - every other invisible format character (Unicode category Cf: zero-width space, word joiner,
 *   BOM, soft hyphen, invisible operators, tag characters, interlinear annotation…);
 * - U+2028/U+2029 (line and paragraph separators: a line break on the page, none for a shell),
 *   and control characters other than tab and newline (a CR can hide a line on a terminal);
 * - variation selectors (U+FE00–FE0F, U+E0100–E01EF, U+180B–180F), which can carry hidden data
 *   after a character, except one U+FE0E/FE0F right after an emoji (it only picks its style).
 * Kept as they are, because they do visible work: a zero-width joiner between two emoji (🧑‍💻),
 * a zero-width (non-)joiner between two letters of a script that needs them (not Latin), the tag
 * characters of a subdivision flag (🏴 + tags + cancel tag).
 */

const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;
/** Cf, the separators, controls other than tab and newline, and variation selectors (written out: they combine). */
const HIDDEN = new RegExp(
  '[\\p{Cf}\\u2028\\u2029\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F' +
    '\\u{FE00}-\\u{FE0F}\\u{E0100}-\\u{E01EF}\\u{180B}-\\u{180F}]',
  'u',
);
const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const EMOJI = /\p{Extended_Pictographic}/u;
const EMOJI_STYLE = /[\uFE0E\uFE0F]/u;
const LETTER_NOT_LATIN = /(?!\p{Script=Latin})\p{L}/u;
const BLACK_FLAG = '\u{1F3F4}';
const FLAG_TAGS = /^[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,6}\u{E007F}/u;

export interface Revealed {
  /** The text with each hidden character written as ⟨U+XXXX⟩. */
  text: string;
  /** Whether anything was revealed: the prompt is to be marked, and a one-tap approval refused. */
  changed: boolean;
  /** How many characters were revealed. */
  count: number;
  /** Whether a bidi control was among them (text can be shown in another order than it runs). */
  bidi: boolean;
  /** The distinct code points revealed, as U+XXXX, in order of first appearance. */
  codes: string[];
}

export const escapeOf = (cp: number) => `⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩`;

/** Whether the hidden character at i does visible work there (see the header), so it stays. */
function kept(cps: string[], i: number): boolean {
  const ch = cps[i]!;
  const cp = ch.codePointAt(0)!;
  const before = cps[i - 1] ?? '';
  const after = cps[i + 1] ?? '';
  if (cp === ZWJ && EMOJI.test(before) && EMOJI.test(after)) return true;
  if ((cp === ZWJ || cp === ZWNJ) && LETTER_NOT_LATIN.test(before) && LETTER_NOT_LATIN.test(after)) return true;
  if (EMOJI_STYLE.test(ch) && EMOJI.test(before)) return true;
  // ZWJ after a style selector inside an emoji sequence (❤️‍🔥).
  if (cp === ZWJ && EMOJI_STYLE.test(before) && EMOJI.test(cps[i - 2] ?? '') && EMOJI.test(after)) return true;
  return false;
}

/** Writes every hidden character of text as a visible escape; says whether it changed anything. */
export function revealInvisible(text: string): Revealed {
  if (!HIDDEN.test(text)) return { text, changed: false, count: 0, bidi: false, codes: [] };
  const cps = Array.from(text);
  let out = '';
  let count = 0;
  let bidi = false;
  const codes: string[] = [];
  for (let i = 0; i < cps.length; i++) {
    const ch = cps[i]!;
    if (ch === BLACK_FLAG) {
      const tags = FLAG_TAGS.exec(cps.slice(i + 1, i + 8).join(''));
      if (tags) {
        out += ch + tags[0];
        i += Array.from(tags[0]).length;
        continue;
      }
    }
    if (!HIDDEN.test(ch) || kept(cps, i)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    const code = escapeOf(cp).slice(1, -1);
    if (!codes.includes(code)) codes.push(code);
    if (BIDI.test(ch)) bidi = true;
    count++;
    out += escapeOf(cp);
  }
  return { text: out, changed: count > 0, count, bidi, codes };
}

/** The one-line mark for a prompt whose input held hidden characters. */
export function revealNote(r: Revealed): string | undefined {
  if (!r.changed) return undefined;
  const what = r.count === 1 ? '1 hidden character' : `${r.count} hidden characters`;
  const why = r.bidi ? ' that can show the text in another order than it runs' : '';
  return `⚠️ This input holds ${what}${why}, shown as ⟨U+…⟩ (${r.codes.join(', ')}). Read it as written.`;
}
