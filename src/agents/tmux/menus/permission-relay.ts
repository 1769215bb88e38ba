/**
 * A menu on the pane, put to the person as a PermissionRequest with the menu's own options, and
 * their decision mapped back to one option. A tool permission prompt carries the question, the tool
 * and its whole input (from the transcript, where nothing is cut or wrapped) and the options: not
 * the TUI's drawing, tips or scrollback. Another menu is described by its own title and text. The
 * first "Yes" option is `allow` and the "No" option is `deny`, so /allow, /deny, the option number
 * and the web page's buttons all work. Options that change how the rest of the session asks
 * (`don't ask again`, `switch to auto mode`) say so in `effect`, and are left out when the person
 * asked to be asked (permissionMode relay or manual). Nothing is approved without the person
 * unless the configured allowlist names it.
 */
import { randomUUID } from 'node:crypto';
import type { PermissionMode } from '../../claude/args.js';
import type { PermissionAnswer, PermissionOption, PermissionRequest } from '../../session.js';
import type { MenuView } from './menus.js';

export interface PendingToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface OpenMenu {
  requestId: string;
  signature: string;
  /** A tool permission prompt (its question is about proceeding) or any other menu. */
  kind: 'permission' | 'menu';
  request: PermissionRequest;
  /** For each of request.options, its index in the menu on screen (some are left out). */
  screenIndex: number[];
  toolUseId: string | undefined;
  answered: boolean;
}

const SHELL_CONTROL = /[;&|`$<>\n\r]/;
const PERMISSION_QUESTION = /^do you want to (proceed|make this edit|create|allow|run)/i;
/** A menu's own text is at most this long in the description. */
const MAX_DESCRIPTION_LINES = 12;
const MAX_DESCRIPTION_CHARS = 1200;

/** Options that answer more than this one request: what each changes, in words the person reads. */
const EFFECTS: Array<[RegExp, string]> = [
  [
    /\b(switch to|use|enable) auto mode\b/i,
    'Switches the session to auto mode: later tool uses run without asking you.',
  ],
  [
    /\bauto-accept edits\b|\baccept edits\b|\ballow all edits\b/i,
    'Switches the session to accept-edits mode: later file edits run without asking you.',
  ],
  [/\bbypass permissions\b|\bskip permissions\b/i, 'Turns permission prompts off for the session.'],
  [/\bmy default mode\b|\bdefault permission mode\b/i, 'Changes the default permission mode of later sessions too.'],
  [
    /\bdon'?t ask again\b|\bdo not ask again\b|\balways allow\b|\bfrom now on\b/i,
    'Remembers this approval: similar requests are no longer asked.',
  ],
];

/** What choosing this option changes beyond the request at hand; undefined for a one-off answer. */
export function optionEffect(label: string): string | undefined {
  if (!/^yes\b/i.test(label)) return undefined;
  return EFFECTS.find(([re]) => re.test(label))?.[1];
}

/** The person wants every tool use put to them: options that stop the asking are not offered. */
export function asksEveryTime(mode: PermissionMode | undefined): boolean {
  return mode === 'relay' || mode === 'manual';
}

function optionId(label: string, index: number, ids: Set<string>): string {
  const id =
    /^yes\b/i.test(label) && !ids.has('allow')
      ? 'allow'
      : /^no\b/i.test(label) && !ids.has('deny')
        ? 'deny'
        : `option-${index + 1}`;
  ids.add(id);
  return id;
}

export function isPermissionMenu(view: MenuView): boolean {
  return (
    !!view.question && PERMISSION_QUESTION.test(view.question) && view.options.some((o) => /^yes\b/i.test(o.label))
  );
}

/** The tool a prompt names when the transcript has not shown it yet: its title, e.g. "Bash command". */
function toolFromScreen(view: MenuView): PendingToolUse {
  const name = /^(\w+)\b/.exec(view.title ?? '')?.[1] ?? 'tool';
  const shown = view.framed.length ? view.framed : view.text.filter((l) => l !== view.title && l !== view.question);
  return { id: '', name, input: shown.length ? { shown: shown.join('\n') } : {} };
}

/** A menu's own words: its text (tips left out), not the scrollback above it, bounded. */
function describeMenu(view: MenuView): string {
  const lines = view.text.slice(0, MAX_DESCRIPTION_LINES);
  const text = lines.join('\n');
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}…` : text;
}

export function menuRequest(view: MenuView, tool: PendingToolUse | undefined, mode?: PermissionMode): OpenMenu {
  const kind = isPermissionMenu(view) ? 'permission' : 'menu';
  const ids = new Set<string>();
  const requestId = randomUUID();
  const asked = kind === 'permission' ? (tool ?? toolFromScreen(view)) : undefined;
  const options: PermissionOption[] = [];
  const screenIndex: number[] = [];
  view.options.forEach((o, i) => {
    const effect = optionEffect(o.label);
    if (effect && asksEveryTime(mode)) return;
    options.push({ id: optionId(o.label, i, ids), label: o.label, ...(effect ? { effect } : {}) });
    screenIndex.push(i);
  });
  const request: PermissionRequest = {
    requestId,
    toolName: asked ? asked.name : 'menu',
    input: asked ? asked.input : { title: view.title ?? '', ...(view.question ? { question: view.question } : {}) },
    description: asked ? view.question : describeMenu(view),
    options,
  };
  return {
    requestId,
    signature: view.signature,
    kind,
    request,
    screenIndex,
    toolUseId: tool && kind === 'permission' ? tool.id : undefined,
    answered: false,
  };
}

/** Which of the request's options an answer picks; undefined when it has no such option. */
export function optionIndex(open: OpenMenu, answer: PermissionAnswer): number | undefined {
  const i = open.request.options.findIndex((o) => o.id === answer.optionId);
  return i < 0 ? undefined : i;
}

/**
 * Allowlist entries: `Tool` (every use of that tool) or `Tool(text)` where text must equal the
 * command / file path / pattern, or start with it when it ends in `*` — e.g. `Bash(git status*)`.
 */
export function autoAllowed(allow: readonly string[], tool: PendingToolUse | undefined): string | undefined {
  if (!tool) return undefined;
  const subject = ['command', 'file_path', 'path', 'pattern', 'url']
    .map((k) => tool.input[k])
    .find((v): v is string => typeof v === 'string');
  for (const entry of allow) {
    const m = /^([^()]+?)(?:\((.*)\))?$/.exec(entry.trim());
    if (!m || m[1] !== tool.name) continue;
    const rule = m[2];
    if (rule === undefined) return entry;
    if (subject === undefined) continue;
    // A prefix never covers a chained or redirected command: `git status; rm -rf ~` is not `git status*`.
    if (rule.endsWith('*') ? !SHELL_CONTROL.test(subject) && subject.startsWith(rule.slice(0, -1)) : subject === rule)
      return entry;
  }
  return undefined;
}
