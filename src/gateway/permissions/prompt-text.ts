/**
 * A permission request as a chat shows it: the tool and its whole input, never silently cut.
 * An input too long for a chat (PROMPT_INPUT_LIMIT) is shown up to the limit, marked as cut, and
 * only its denial is offered: nobody approves from a chat a command whose tail they never saw.
 */
import type { PermissionRequest } from '../../agents/session.js';
import { code } from '../markdown.js';
import type { PermissionOption } from '../steps/types.js';

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
  /** The options a chat may choose, with their number in the request (deny only, when cut). */
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

/** The options a chat may choose: a cut input may only be denied. */
export function offeredOptions(req: PermissionRequest, cut: boolean): ComposedPrompt['offered'] {
  return req.options.map((o, i) => ({ ...o, number: i + 1 })).filter((o) => !cut || o.id === 'deny');
}

export function composePrompt(req: PermissionRequest, o: { buttons: boolean }): ComposedPrompt {
  const entries = Object.entries(req.input ?? {});
  const inputChars = entries.reduce((n, [, v]) => n + valueText(v).length, 0);
  const lines: string[] = [`🔐 **The agent asks to use ${req.toolName}**`];
  if (req.description?.trim()) lines.push(req.description.trim());
  let budget = PROMPT_INPUT_LIMIT;
  const hidden: string[] = [];
  for (const [key, v] of entries) {
    const full = valueText(v);
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
  const cut = inputChars > PROMPT_INPUT_LIMIT;
  const offered = offeredOptions(req, cut);
  if (cut) {
    lines.push(
      `✂️ This input is ${inputChars} characters, too long to show whole here, so it cannot be approved from ` +
        `this chat. Deny it, or answer on the web page.`,
    );
  }
  if (offered.length) {
    lines.push(offered.map((x) => `${x.number}. ${x.label}${x.effect ? ` (⚠️ ${x.effect})` : ''}`).join('\n'));
    lines.push(
      o.buttons
        ? 'Press a button, or reply with the option number.'
        : `Reply with the option number${
            offered.some((x) => x.id === 'allow') ? ', ' + '/allow' : ''
          }${offered.some((x) => x.id === 'deny') ? ' or /deny' : ''}.`,
    );
  }
  return { text: lines.join('\n'), cut, inputChars, offered };
}
