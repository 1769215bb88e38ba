/**
 * A permission request as a chat shows it: the tool and its whole input, never silently cut.
 * An input too long for a chat (PROMPT_INPUT_LIMIT) is shown up to the limit, marked as cut, and
 * only its denial is offered: nobody approves from a chat a command whose tail they never saw.
 */
import type { PermissionRequest } from '../../agents/session.js';
import { revealInvisible, revealNote } from '../../security/reveal.js';
import { code } from '../markdown.js';
import type { PermissionOption } from '../steps/types.js';
import { kindOf, refuses } from './options.js';

/** Characters of tool input a chat shows (split across messages as the platform needs). */
export const PROMPT_INPUT_LIMIT = 16_000;
/** A string value longer than this, or with a line break, gets a block of its own. */
const INLINE_CHARS = 80;

export interface ComposedPrompt {
  /** Markdown: the request, its input (whole unless cut), the options and how to answer. */
  text: string;
  /** The input was longer than PROMPT_INPUT_LIMIT and not shown whole. */
  cut: boolean;
  /** Characters of input in all (string values, and other values as JSON). */
  inputChars: number;
  /** The input held characters that hide or reorder text, shown as ⟨U+…⟩: a chat may only refuse it. */
  revealed: boolean;
  /** The options a chat may choose, with their number in the request (refusals only, when cut or revealed). */
  offered: Array<PermissionOption & { number: number }>;
}

/** A fenced block that holds any text: its fence is longer than every backtick run inside. */
function block(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}\n${fence}`;
}

function valueText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v, null, 2) ?? String(v));
}

/** The options a chat may choose: an input not shown whole, or one that hides characters, may only be refused. */
export function offeredOptions(req: PermissionRequest, refuseOnly: boolean): ComposedPrompt['offered'] {
  return req.options.map((o, i) => ({ ...o, number: i + 1 })).filter((o) => !refuseOnly || refuses(o));
}

/** How a chat shows a request's input: each value as shown (hidden characters as escapes), and what that implies. */
function measure(req: PermissionRequest) {
  // Shown as it will run: what hides or reorders text (bidi controls, zero-width…) drawn as ⟨U+…⟩.
  const shownText = revealInvisible(JSON.stringify(req.input ?? {}) + (req.description ?? ''));
  const entries = Object.entries(req.input ?? {}).map(([k, v]) => [k, revealInvisible(valueText(v)).text] as const);
  const inputChars = entries.reduce((n, [, v]) => n + v.length, 0);
  return { shownText, entries, inputChars, cut: inputChars > PROMPT_INPUT_LIMIT, revealed: shownText.changed };
}

/**
 * What a chat showed of a request, for the desk's rule (surfaces.ts): an input cut, or one hiding characters, may
 * only be refused from a chat; `refusal` tells the person why and where to approve it instead.
 */
export function chatShows(req: PermissionRequest): { whole: boolean; hides: boolean; refusal: string } {
  const { cut, revealed, inputChars } = measure(req);
  const refusal =
    revealed && !cut
      ? "This request's input holds characters that hide or reorder text, so it cannot be approved from a " +
        'chat. Deny it, or approve it on the web page, where the escapes are shown.'
      : `This request's input is ${inputChars} characters, too long to show whole in a chat, so it ` +
        'cannot be approved here. Deny it, or answer on the web page.';
  return { whole: !cut, hides: revealed, refusal };
}

export function composePrompt(req: PermissionRequest, o: { buttons: boolean }): ComposedPrompt {
  const { shownText, entries, inputChars, cut, revealed } = measure(req);
  const lines: string[] = [`🔐 **The agent asks to use ${req.toolName}**`];
  if (req.description?.trim()) lines.push(revealInvisible(req.description.trim()).text);
  const note = revealNote(shownText);
  if (note) lines.push(note);
  let budget = PROMPT_INPUT_LIMIT;
  const hidden: string[] = [];
  for (const [key, full] of entries) {
    if (budget <= 0) {
      hidden.push(key);
      continue;
    }
    const shown = full.length > budget ? full.slice(0, budget) : full;
    budget -= full.length;
    if (shown.length === full.length && !shown.includes('\n') && shown.length <= INLINE_CHARS)
      lines.push(`**${key}**: ${code(shown)}`);
    else lines.push(`**${key}**`, block(shown));
    if (shown.length < full.length)
      lines.push(`✂️ ${full.length - shown.length} more characters of **${key}** are not shown.`);
  }
  if (hidden.length) lines.push(`✂️ Not shown: ${hidden.map((k) => `**${k}**`).join(', ')}.`);
  const offered = offeredOptions(req, cut || revealed);
  if (cut) {
    lines.push(
      `✂️ This input is ${inputChars} characters, too long to show whole here, so it cannot be approved from ` +
        `this chat. Deny it, or answer on the web page.`,
    );
  } else if (revealed) {
    lines.push(
      'It cannot be approved from this chat: deny it, or approve it on the web page, where it shows the same.',
    );
  }
  if (offered.length) {
    lines.push(offered.map((x) => `${x.number}. ${x.label}${x.effect ? ` (⚠️ ${x.effect})` : ''}`).join('\n'));
    lines.push(
      o.buttons
        ? 'Press a button, or reply with the option number.'
        : `Reply with the option number${
            offered.some((x) => kindOf(x) === 'allow') ? ', ' + '/allow' : ''
          }${offered.some(refuses) ? ' or /deny' : ''}.`,
    );
  }
  return { text: lines.join('\n'), cut, revealed, inputChars, offered };
}
