/**
 * Codex's tool items in the shapes the shared turn steps already draw (gateway/steps, the web
 * timeline): a command as Bash {command, cwd}; a file change as Write {file_path, content} for a
 * new file, Edit {file_path, old_string, new_string} for a deletion or a one-hunk update,
 * MultiEdit {file_path, edits} for several hunks. Each edit also carries the unified `diff` as
 * codex gave it, and `move_path` when the file was renamed.
 */
import type { ItemOf, v2 } from '../protocol/index.js';

/** `/bin/bash -lc 'echo hi'` → `echo hi`: the shell wrapper codex adds is not what the model asked for. */
export function unwrapShell(command: string): string {
  const m = /^(?:\/\S*\/)?(?:ba|z|da|)sh -l?c '((?:[^']|'\\'')*)'$/.exec(command);
  return m ? m[1]!.replace(/'\\''/g, "'") : command;
}

export function commandInput(item: ItemOf<'commandExecution'>): { command: string; cwd: string } {
  return { command: unwrapShell(item.command), cwd: item.cwd };
}

interface Hunk {
  old_string: string;
  new_string: string;
}

/** The hunks of a unified diff as before/after texts (context lines in both). */
export function hunksOf(diff: string): Hunk[] {
  const hunks: Hunk[] = [];
  let cur: { old: string[]; new: string[] } | undefined;
  const close = () => {
    if (cur) hunks.push({ old_string: cur.old.join('\n'), new_string: cur.new.join('\n') });
    cur = undefined;
  };
  const lines = diff.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('@@')) {
      close();
      cur = { old: [], new: [] };
      continue;
    }
    if (!cur || line.startsWith('\\')) continue; // headers before the first hunk, "\ No newline at end of file"
    const body = line.slice(1);
    if (line.startsWith('-')) cur.old.push(body);
    else if (line.startsWith('+')) cur.new.push(body);
    else {
      cur.old.push(body);
      cur.new.push(body);
    }
  }
  close();
  return hunks;
}

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** One file of a fileChange item as a tool call. */
export function fileChangeCall(change: v2.FileUpdateChange): ToolCall {
  const file_path = change.path;
  switch (change.kind.type) {
    case 'add':
      return { name: 'Write', input: { file_path, content: change.diff } };
    case 'delete':
      return { name: 'Edit', input: { file_path, old_string: change.diff, new_string: '', deleted: true } };
    case 'update': {
      const moved = change.kind.move_path ? { move_path: change.kind.move_path } : {};
      const hunks = hunksOf(change.diff);
      if (hunks.length === 1) return { name: 'Edit', input: { file_path, ...hunks[0], diff: change.diff, ...moved } };
      return { name: 'MultiEdit', input: { file_path, edits: hunks, diff: change.diff, ...moved } };
    }
  }
}
