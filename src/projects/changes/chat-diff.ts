/**
 * `/diff` for a chat: the files changed with their +/- counts and the first lines of each hunk,
 * packed into messages within the platform's character limit, or, when that would take too many
 * messages, a short summary and the whole change as a `.diff` text. Pure: the channel sends it.
 * Paths and lines are sanitised (no control or invisible characters reach a chat).
 */
import { sanitiseText } from '../../security/sanitise.js';
import { parseHunks } from './parse.js';
import { type ChangeSet, type FileChange, SECTIONS, type Section } from './types.js';

export interface ChatDiffOptions {
  /** Characters per message: the platform's limit, less what the channel adds. */
  limit: number;
  /** Lines shown of each hunk, after its @@ line. */
  hunkLines?: number;
  /** Beyond this many messages the change goes as a .diff text instead. */
  maxMessages?: number;
  /** Put each file's hunk lines in a ```diff block (chats that render Markdown). */
  fence?: boolean;
}

export type ChatDiff =
  | { kind: 'messages'; messages: string[] }
  | { kind: 'file'; summary: string; file: { name: string; text: string } };

const TITLES: Record<Section, string> = {
  committed: 'Committed',
  staged: 'Staged, not committed',
  unstaged: 'Not staged',
  untracked: 'New files, not committed',
};
/** A diff line longer than this is cut in a chat. */
const LINE_CHARS = 160;
const MINUS = '−';

const clean = (s: string) => sanitiseText(s);
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, Math.max(0, n - 1))}…` : s);

function letter(f: FileChange): string {
  return { added: 'A', modified: 'M', deleted: 'D', renamed: 'R', unmerged: 'U' }[f.status];
}

function counts(f: FileChange): string {
  if (f.directory) return '(a directory)';
  if (f.binary) return '(binary)';
  const parts = [];
  if (f.added) parts.push(`+${f.added}`);
  if (f.deleted) parts.push(`${MINUS}${f.deleted}`);
  if (f.added === null) parts.push('(too large to count)');
  return parts.join(' ') || '±0';
}

/** "M src/a.ts +3 −1", "R old.ts → new.ts", with a note when the diff is not shown. */
export function fileLine(f: FileChange): string {
  const name = f.oldPath !== undefined ? `${clean(f.oldPath)} → ${clean(f.path)}` : clean(f.path);
  const note = f.collapsed
    ? ` · diff not shown (${f.collapsed.reason === 'budget' ? 'too many changes' : 'large'})`
    : '';
  return `${letter(f)} ${name} ${counts(f)}${note}`;
}

export function headerLines(set: ChangeSet): string[] {
  const t = set.totals;
  const sum = `${t.files} file${t.files === 1 ? '' : 's'} changed · +${t.added} ${MINUS}${t.deleted}`;
  if (!set.base) return [`Uncommitted changes in ${set.worktree}${set.branch ? ` (on ${set.branch})` : ''}`, sum];
  const b = set.base;
  return [`${set.branch ?? '(detached HEAD)'} → ${b.name} · ${b.ahead} ahead, ${b.behind} behind`, sum];
}

/** A file's line and its hunks' first lines, within budget characters. */
function fileBlock(f: FileChange, o: Required<ChatDiffOptions>, budget: number): string {
  const head = fileLine(f);
  const hunks = f.diff && !f.binary ? parseHunks(f.diff) : [];
  if (!hunks.length) return cut(head, budget);
  const open = o.fence ? '```diff\n' : '';
  const close = o.fence ? '\n```' : '';
  const body: string[] = [];
  let used = head.length + 1 + open.length + close.length;
  let shown = 0;
  for (const h of hunks) {
    const lines = [h.header, ...h.lines.slice(0, o.hunkLines)].map((l) => cut(clean(l), LINE_CHARS));
    if (h.lines.length > o.hunkLines) lines.push(`… ${h.lines.length - o.hunkLines} more lines`);
    const size = lines.reduce((n, l) => n + l.length + 1, 0);
    // Room is kept for the line that says how many hunks are left out.
    if (used + size + 24 > budget) break;
    body.push(...lines);
    used += size;
    shown++;
  }
  if (shown < hunks.length) body.push(`… ${hunks.length - shown} more hunk${hunks.length - shown === 1 ? '' : 's'}`);
  if (!shown) return cut(`${head}\n${body.at(-1)}`, budget);
  return `${head}\n${open}${body.join('\n')}${close}`;
}

/** Blocks (each no longer than limit) into messages of at most limit characters, in order. */
function pack(blocks: string[], limit: number): string[] {
  const out: string[] = [];
  let cur = '';
  for (const b of blocks) {
    if (!cur) cur = b;
    else if (cur.length + 1 + b.length <= limit) cur += `\n${b}`;
    else {
      out.push(cur);
      cur = b;
    }
  }
  if (cur) out.push(cur);
  return out;
}

function sectionTitle(set: ChangeSet, s: Section): string {
  const n = set.sections[s].files.length + set.sections[s].omitted;
  const extra = s === 'committed' && set.base ? `, ${set.base.ahead} commit${set.base.ahead === 1 ? '' : 's'}` : '';
  return `${TITLES[s]} (${n} file${n === 1 ? '' : 's'}${extra}):`;
}

export function renderChatDiff(set: ChangeSet, opts: ChatDiffOptions): ChatDiff {
  const o: Required<ChatDiffOptions> = { hunkLines: 4, maxMessages: 4, fence: false, ...opts };
  const limit = Math.max(200, o.limit);
  const header = cut(headerLines(set).join('\n'), limit);
  const sections = SECTIONS.filter((s) => set.sections[s].files.length || set.sections[s].omitted);
  if (!sections.length) return { kind: 'messages', messages: [`${header}\nNo changes.`] };
  const blocks = [header];
  for (const s of sections) {
    const files = set.sections[s].files;
    // A section's title travels with its first file, so a message never ends on a bare title.
    files.forEach((f, i) => {
      const title = i === 0 ? `\n${sectionTitle(set, s)}\n` : '';
      blocks.push(title + fileBlock(f, o, limit - title.length));
    });
    if (set.sections[s].omitted) blocks.push(`… and ${set.sections[s].omitted} more files`);
  }
  const messages = pack(blocks, limit);
  if (messages.length <= o.maxMessages) return { kind: 'messages', messages };
  return {
    kind: 'file',
    summary: summary(set, header, sections, limit),
    file: { name: fileName(set), text: diffText(set) },
  };
}

/** The file list alone, in one message: what accompanies the .diff. */
function summary(set: ChangeSet, header: string, sections: Section[], limit: number): string {
  const lines = [header];
  const all = sections.flatMap((s) => [`\n${sectionTitle(set, s)}`, ...set.sections[s].files.map(fileLine)]);
  const tail = (left: number) => `… and ${left} more lines; the whole diff is in the file.`;
  let used = header.length;
  for (let i = 0; i < all.length; i++) {
    const l = cut(all[i]!, LINE_CHARS);
    if (used + l.length + 1 + tail(all.length).length + 1 > limit) {
      lines.push(tail(all.length - i));
      break;
    }
    lines.push(l);
    used += l.length + 1;
  }
  return lines.join('\n');
}

export function fileName(set: ChangeSet): string {
  const name = (set.branch ?? 'changes').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return `${name || 'changes'}.diff`;
}

/** The whole change as one .diff text: each section's chunks, a comment line where a diff was left out. */
export function diffText(set: ChangeSet): string {
  const out: string[] = [];
  for (const s of SECTIONS) {
    const files = set.sections[s].files;
    if (!files.length) continue;
    out.push(`# ${sectionTitle(set, s)}\n`);
    for (const f of files) {
      if (f.diff !== undefined) out.push(f.diff.endsWith('\n') ? f.diff : `${f.diff}\n`);
      else out.push(`# ${fileLine(f)}\n`);
    }
    if (set.sections[s].omitted) out.push(`# … and ${set.sections[s].omitted} more files not listed\n`);
  }
  return out.join('');
}

/**
 * The set with collapsed diffs fetched (fileDiff), up to maxBytes in all: for a .diff file, which has room for what
 * the chat view left out. A file that does not fit stays collapsed.
 */
export async function withFullDiffs(
  set: ChangeSet,
  fetch: (f: FileChange) => Promise<{ diff: string; truncated: boolean }>,
  maxBytes: number,
): Promise<ChangeSet> {
  let left = maxBytes;
  const sections = { ...set.sections };
  for (const s of SECTIONS) {
    const files: FileChange[] = [];
    for (const f of set.sections[s].files) {
      if (!f.collapsed || f.directory || left <= 0) {
        files.push(f);
        continue;
      }
      const got = await fetch(f);
      const bytes = Buffer.byteLength(got.diff);
      if (got.truncated || bytes > left) files.push(f);
      else {
        left -= bytes;
        const { collapsed: _, ...rest } = f;
        files.push({ ...rest, diff: got.diff });
      }
    }
    sections[s] = { ...set.sections[s], files };
  }
  return { ...set, sections };
}
