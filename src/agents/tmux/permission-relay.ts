/**
 * A menu on the pane, put to the person as a PermissionRequest with the menu's own options, and
 * their decision mapped back to one option. A tool permission prompt names the tool the transcript
 * shows pending; the first "Yes" option is `allow` and the "No" option is `deny`, so /allow, /deny,
 * the option number and the web page's buttons all work. Nothing is approved without the person
 * unless the configured allowlist names it.
 */
import { randomUUID } from 'node:crypto';
import type { PermissionDecision, PermissionRequest } from '../session.js';
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
  toolUseId: string | undefined;
  answered: boolean;
}

const SHELL_CONTROL = /[;&|`$<>\n\r]/;
const PERMISSION_QUESTION = /^do you want to (proceed|make this edit|create|allow|run)/i;

function optionId(label: string, index: number, ids: Set<string>): string {
  const id = /^yes\b/i.test(label) && !ids.has('allow') ? 'allow' : /^no\b/i.test(label) && !ids.has('deny') ? 'deny' : `option-${index + 1}`;
  ids.add(id);
  return id;
}

export function isPermissionMenu(view: MenuView): boolean {
  return !!view.question && PERMISSION_QUESTION.test(view.question) && view.options.some((o) => /^yes\b/i.test(o.label));
}

export function menuRequest(view: MenuView, tool: PendingToolUse | undefined): OpenMenu {
  const kind = isPermissionMenu(view) ? 'permission' : 'menu';
  const ids = new Set<string>();
  const requestId = randomUUID();
  const request: PermissionRequest = {
    requestId,
    toolName: kind === 'permission' ? (tool?.name ?? view.body[0] ?? 'tool') : 'menu',
    input: kind === 'permission' && tool ? tool.input : { question: view.question ?? '', screen: view.body.slice(-8).join('\n') },
    description: [view.question, ...view.body.slice(-6)].filter(Boolean).join('\n'),
    options: view.options.map((o, i) => ({ id: optionId(o.label, i, ids), label: o.label })),
  };
  return { requestId, signature: view.signature, kind, request, toolUseId: kind === 'permission' ? tool?.id : undefined, answered: false };
}

/** The option index a decision picks; undefined when the menu has no such option. */
export function decisionIndex(open: OpenMenu, decision: PermissionDecision): number | undefined {
  const id = 'optionId' in decision ? decision.optionId : decision.allow ? 'allow' : 'deny';
  const i = open.request.options.findIndex((o) => o.id === id);
  return i < 0 ? undefined : i;
}

/**
 * Allowlist entries: `Tool` (every use of that tool) or `Tool(text)` where text must equal the
 * command / file path / pattern, or start with it when it ends in `*` — e.g. `Bash(git status*)`.
 */
export function autoAllowed(allow: readonly string[], tool: PendingToolUse | undefined): string | undefined {
  if (!tool) return undefined;
  const subject = ['command', 'file_path', 'path', 'pattern', 'url'].map((k) => tool.input[k]).find((v): v is string => typeof v === 'string');
  for (const entry of allow) {
    const m = /^([^()]+?)(?:\((.*)\))?$/.exec(entry.trim());
    if (!m || m[1] !== tool.name) continue;
    const rule = m[2];
    if (rule === undefined) return entry;
    if (subject === undefined) continue;
    // A prefix never covers a chained or redirected command: `git status; rm -rf ~` is not `git status*`.
    if (rule.endsWith('*') ? !SHELL_CONTROL.test(subject) && subject.startsWith(rule.slice(0, -1)) : subject === rule) return entry;
  }
  return undefined;
}
