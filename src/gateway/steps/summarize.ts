/** One-line summaries and bounded copies of tool inputs and outputs, for steps. */

import { revealInvisible } from '../../security/reveal.js';
import { STEP_LIMITS } from './types.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

function oneLine(s: string, max: number = STEP_LIMITS.summary): string {
  const flat = s.replace(/\s*\n\s*/g, ' ⏎ ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The field that says what a call does, by tool; the rest fall back to a short JSON of the input. */
const KEY_FIELD: Record<string, (i: Record<string, unknown>) => string | undefined> = {
  Bash: (i) => str(i.command),
  BashOutput: (i) => str(i.bash_id),
  KillShell: (i) => str(i.shell_id),
  Read: (i) => str(i.file_path),
  Write: (i) => str(i.file_path),
  Edit: (i) => str(i.file_path),
  MultiEdit: (i) => str(i.file_path),
  NotebookEdit: (i) => str(i.notebook_path),
  Grep: (i) => [str(i.pattern), str(i.path) ?? str(i.glob)].filter(Boolean).join(' in ') || undefined,
  Glob: (i) => [str(i.pattern), str(i.path)].filter(Boolean).join(' in ') || undefined,
  WebFetch: (i) => str(i.url),
  WebSearch: (i) => str(i.query),
  Task: (i) => str(i.description) ?? str(i.prompt),
  Agent: (i) => str(i.description) ?? str(i.prompt),
  TodoWrite: (i) => (Array.isArray(i.todos) ? `${i.todos.length} to-do item(s)` : undefined),
};

/** One line of what a tool call does, as it will run: hidden characters shown as ⟨U+…⟩ (security/reveal.ts). */
export function toolSummary(name: string, input: unknown): string {
  const obj = asObject(input);
  const key = KEY_FIELD[name]?.(obj);
  if (key) return oneLine(revealInvisible(key).text);
  const json = JSON.stringify(input ?? {});
  return oneLine(json === '{}' ? name : revealInvisible(json).text);
}

export function asObject(input: unknown): Record<string, unknown> {
  return input && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { value: input };
}

/**
 * A copy of the input whose every string is at most `limit` characters (marked when cut); `cut` says whether anything
 * was.
 */
export function boundedInput(input: unknown, limit: number = STEP_LIMITS.inputField): Record<string, unknown> {
  return boundInput(input, limit).input;
}

export function boundInput(input: unknown, limit: number): { input: Record<string, unknown>; cut: boolean } {
  let cut = false;
  const bound = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      if (v.length <= limit) return v;
      cut = true;
      return `${v.slice(0, limit)}… [${v.length - limit} more characters]`;
    }
    if (depth > 4 || v === null || typeof v !== 'object') return v;
    const entries = Array.isArray(v) ? v : Object.entries(v);
    if (entries.length > (Array.isArray(v) ? 100 : 50)) cut = true;
    if (Array.isArray(v)) return v.slice(0, 100).map((x) => bound(x, depth + 1));
    return Object.fromEntries(
      Object.entries(v)
        .slice(0, 50)
        .map(([k, x]) => [k, bound(x, depth + 1)]),
    );
  };
  return { input: bound(asObject(input), 0) as Record<string, unknown>, cut };
}

/** A tool's output cut to STEP_LIMITS.output characters. */
export function boundedOutput(text: string): { output: string; outputTruncated?: boolean } {
  if (text.length <= STEP_LIMITS.output) return { output: text };
  return { output: text.slice(0, STEP_LIMITS.output), outputTruncated: true };
}
