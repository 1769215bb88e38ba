/**
 * Pure parsers of git's machine outputs: `diff --raw --numstat -z`, a patch split per file,
 * `status --porcelain=v1 -z`, a diff's hunks. None of them throws on a line it does not know.
 */
import type { DiscardEntry, FileStatus } from './types.js';

export interface RawEntry {
  /** git's letter: A, M, D, R, C, T (type change), U (unmerged). */
  letter: string;
  similarity?: number;
  oldMode: string;
  newMode: string;
  path: string;
  oldPath?: string;
  added: number | null;
  deleted: number | null;
  binary: boolean;
}

/** `git diff --raw --numstat -z`: the raw records, then the numstat records, joined by path. */
export function parseRawNumstat(out: string): RawEntry[] {
  const t = out.split('\0');
  const entries: RawEntry[] = [];
  const byPath = new Map<string, RawEntry>();
  let i = 0;
  while (i < t.length) {
    const tok = t[i++]!;
    if (!tok) continue;
    if (tok.startsWith(':')) {
      const [oldMode = '', newMode = '', , , status = ''] = tok.slice(1).split(' ');
      const letter = status.charAt(0);
      const two = letter === 'R' || letter === 'C';
      const first = t[i++] ?? '';
      const e: RawEntry = {
        letter,
        oldMode,
        newMode,
        path: two ? (t[i++] ?? '') : first,
        added: null,
        deleted: null,
        binary: false,
      };
      if (two) {
        e.oldPath = first;
        e.similarity = Number(status.slice(1)) || 0;
      }
      entries.push(e);
      byPath.set(e.path, e);
      continue;
    }
    const m = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(tok);
    if (!m) continue;
    let path = m[3]!;
    if (path === '') {
      i++; // the old path
      path = t[i++] ?? '';
    }
    const e = byPath.get(path);
    if (!e) continue;
    e.binary = m[1] === '-';
    e.added = e.binary ? null : Number(m[1]);
    e.deleted = e.binary ? null : Number(m[2]);
  }
  return entries;
}

export function statusOf(letter: string): FileStatus {
  if (letter === 'A') return 'added';
  if (letter === 'D') return 'deleted';
  if (letter === 'R') return 'renamed';
  if (letter === 'U') return 'unmerged';
  return 'modified'; // M, T (a file became a symlink), C
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** A path git wrote C-quoted ("a\tb", octal bytes), unquoted; anything else as it is. */
export function unquote(s: string): string {
  if (!s.startsWith('"') || !s.endsWith('"') || s.length < 2) return s;
  const bytes: number[] = [];
  const body = s.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The path a `diff --git` chunk is about: its "rename to" line, else the header's b/ side. */
export function chunkPath(chunk: string): string {
  const rename = /^rename to (.*)$/m.exec(chunk.slice(0, 4096));
  if (rename) return unquote(rename[1]!);
  const header = chunk.slice(0, chunk.indexOf('\n') >>> 0).replace(/^diff --git /, '');
  if (header.startsWith('"')) {
    // Quoted sides: the second one starts after the first closing quote.
    let j = 1;
    while (j < header.length && !(header[j] === '"' && header[j - 1] !== '\\')) j++;
    return unquote(header.slice(j + 2)).replace(/^b\//, '');
  }
  // "a/X b/X": both sides are the same path when it is not a rename.
  const half = (header.length - 1) / 2;
  return header.slice(half + 1).replace(/^b\//, '');
}

/** A patch cut into its files' chunks, keyed by path; a type change (two chunks for one path) stays together. */
export function splitPatch(patch: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const chunk of patch.split(/^(?=diff --git )/m)) {
    if (!chunk.startsWith('diff --git ')) continue;
    const path = chunkPath(chunk);
    out.set(path, (out.get(path) ?? '') + chunk);
  }
  return out;
}

/** `git status --porcelain=v1 -z --ignored`: each path with what would be lost by discarding it. */
export function parseStatus(out: string): DiscardEntry[] {
  const t = out.split('\0');
  const entries: DiscardEntry[] = [];
  for (let i = 0; i < t.length; i++) {
    const tok = t[i]!;
    if (tok.length < 4) continue;
    const x = tok[0]!;
    const y = tok[1]!;
    const path = tok.slice(3);
    const e: DiscardEntry = { path, state: stateOf(x, y), directory: path.endsWith('/') };
    if (x === 'R' || x === 'C') e.oldPath = t[++i] ?? '';
    entries.push(e);
  }
  return entries;
}

function stateOf(x: string, y: string): DiscardEntry['state'] {
  if (x === '!' && y === '!') return 'ignored';
  if (x === '?' && y === '?') return 'untracked';
  if (x === 'U' || y === 'U' || (x === 'A' && y === 'A') || (x === 'D' && y === 'D')) return 'unmerged';
  if (x === 'D' || y === 'D') return 'deleted';
  if (x === 'R' || x === 'C') return 'renamed';
  if (x === 'A') return 'added';
  return 'modified';
}

export interface Hunk {
  /** The `@@ -a,b +c,d @@ context` line. */
  header: string;
  lines: string[];
}

/** A file chunk's hunks (the lines after each @@ header, without the file's header lines). */
export function parseHunks(diff: string): Hunk[] {
  const hunks: Hunk[] = [];
  let cur: Hunk | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) {
      cur = { header: line, lines: [] };
      hunks.push(cur);
    } else if (cur && /^[ +\-\\]/.test(line)) cur.lines.push(line);
    else if (line.startsWith('diff --git ')) cur = undefined;
  }
  return hunks;
}
