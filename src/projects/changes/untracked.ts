/**
 * An untracked file as a new-file diff, read from the working tree (git has no object for it and
 * a read must not write the index). Binary as git decides it: a NUL in the first 8000 bytes.
 * Reads are bounded; only paths git lists as untracked inside the worktree are ever read.
 */
import fs from 'node:fs';
import path from 'node:path';

/** git's own look-ahead for binary detection (xdiff's FIRST_FEW_BYTES). */
const SNIFF_BYTES = 8000;
/** Lines are counted in files up to this size; a larger one is reported by its size alone. */
const COUNT_LIMIT = 16 * 1024 * 1024;

export interface NewFile {
  binary: boolean;
  /** Lines in the file, or null when it is too large to count. */
  lines: number | null;
  bytes: number;
  mode: string;
  /** The diff, or undefined when it would be longer than maxBytes. */
  diff?: string;
  /** The diff's length in bytes, when known. */
  diffBytes: number | null;
  /** With cut: the diff covers only the file's first maxBytes. */
  truncated: boolean;
}

/** Resolves a path git named inside the worktree, refusing anything that leaves it. */
export function insideTree(top: string, rel: string): string | undefined {
  const abs = path.resolve(top, rel);
  return abs.startsWith(top.endsWith(path.sep) ? top : top + path.sep) ? abs : undefined;
}

function readHead(abs: string, n: number): Buffer {
  const fd = fs.openSync(abs, 'r');
  try {
    const buf = Buffer.alloc(n);
    const got = fs.readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

function countLines(abs: string, size: number): number | null {
  if (size > COUNT_LIMIT) return null;
  const data = fs.readFileSync(abs);
  let n = 0;
  for (const b of data) if (b === 10) n++;
  return data.length && data[data.length - 1] !== 10 ? n + 1 : n;
}

/** The whole lines at the start of text whose diff lines ("+" and the line) fit in budget bytes. */
function linesWithin(text: string, budget: number): string {
  let used = 0;
  let end = 0;
  while (end < text.length) {
    const nl = text.indexOf('\n', end);
    if (nl < 0) break;
    const size = Buffer.byteLength(text.slice(end, nl + 1)) + 1;
    if (used + size > budget) break;
    used += size;
    end = nl + 1;
  }
  return text.slice(0, end);
}

function hunk(rel: string, mode: string, body: string): string {
  const head = `diff --git a/${rel} b/${rel}\nnew file mode ${mode}\n`;
  if (body === '') return head;
  const lines = body.split('\n');
  const noEol = !body.endsWith('\n');
  if (!noEol) lines.pop();
  const range = lines.length === 1 ? '+1' : `+1,${lines.length}`;
  return (
    `${head}--- /dev/null\n+++ b/${rel}\n@@ -0,0 ${range} @@\n` +
    lines.map((l) => `+${l}\n`).join('') +
    (noEol ? '\\ No newline at end of file\n' : '')
  );
}

/**
 * The untracked file at rel (inside top) as a new file; maxBytes bounds the diff it returns: a longer one is left
 * out, or with cut, the file's first maxBytes (to its last whole line) are shown and marked truncated.
 */
export function newFile(top: string, rel: string, maxBytes: number, cut = false): NewFile | undefined {
  const abs = insideTree(top, rel);
  if (!abs) return undefined;
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch {
    return undefined; // gone since git listed it
  }
  if (st.isSymbolicLink()) {
    // git stores a link as its target, without a newline.
    const target = fs.readlinkSync(abs);
    const diff = hunk(rel, '120000', target);
    const diffBytes = Buffer.byteLength(diff);
    return { binary: false, lines: 1, bytes: target.length, mode: '120000', diff, diffBytes, truncated: false };
  }
  if (!st.isFile()) return undefined;
  const mode = st.mode & 0o111 ? '100755' : '100644';
  const head = readHead(abs, Math.min(st.size, Math.max(SNIFF_BYTES, maxBytes + 1)));
  if (head.subarray(0, SNIFF_BYTES).includes(0)) {
    const diff = `diff --git a/${rel} b/${rel}\nnew file mode ${mode}\nBinary files /dev/null and b/${rel} differ\n`;
    const diffBytes = Buffer.byteLength(diff);
    return { binary: true, lines: null, bytes: st.size, mode, diff, diffBytes, truncated: false };
  }
  const lines = countLines(abs, st.size);
  const info = { binary: false, lines, bytes: st.size, mode };
  // A diff is the file plus one "+" a line and a header: too long when the file alone is.
  if (st.size > maxBytes && !cut) return { ...info, diffBytes: null, truncated: false };
  const whole = hunk(rel, mode, head.toString('utf8'));
  const wholeBytes = Buffer.byteLength(whole);
  if (wholeBytes <= maxBytes && head.length === st.size)
    return { ...info, diff: whole, diffBytes: wholeBytes, truncated: false };
  if (!cut) return { ...info, diffBytes: wholeBytes, truncated: false };
  const diff = hunk(rel, mode, linesWithin(head.toString('utf8'), maxBytes - 512 - 2 * Buffer.byteLength(rel)));
  return { ...info, diff, diffBytes: Buffer.byteLength(diff), truncated: true };
}
