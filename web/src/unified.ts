/**
 * A file's unified diff (git's `diff --git` chunk) as rows the Changes view draws: each hunk's
 * header, then each line with its number on the old and the new side; the split view pairs a
 * hunk's removed lines with the added lines that replace them. Pure.
 */

export type LineType = ' ' | '+' | '-';

export interface DiffRow {
  kind: 'line';
  type: LineType;
  /** Line number before the change (context and removed lines). */
  old: number | null;
  /** Line number after the change (context and added lines). */
  new: number | null;
  text: string;
  /** Index among the file's line rows (hunk headers not counted). */
  index: number;
  /** Which hunk it belongs to (for highlighting a hunk's side as one text). */
  hunk: number;
  /** git's "\ No newline at end of file" follows this line. */
  noNewline?: boolean;
}

export interface HunkRow {
  kind: 'hunk';
  header: string;
  hunk: number;
}

export type Row = DiffRow | HunkRow;

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** The rows of a file's diff; the header lines before the first hunk (diff --git, index, ---, +++) are left out. */
export function diffRows(diff: string): Row[] {
  const rows: Row[] = [];
  let old = 0;
  let nu = 0;
  let hunk = -1;
  let index = 0;
  let last: DiffRow | undefined;
  for (const line of diff.split('\n')) {
    const m = HUNK.exec(line);
    if (m) {
      hunk++;
      old = Number(m[1]);
      nu = Number(m[2]);
      rows.push({ kind: 'hunk', header: line, hunk });
      last = undefined;
      continue;
    }
    if (hunk < 0) continue;
    if (line.startsWith('\\')) {
      if (last) last.noNewline = true;
      continue;
    }
    const type = line[0];
    if (type !== ' ' && type !== '+' && type !== '-') {
      if (line.startsWith('diff --git ')) hunk = -1;
      continue;
    }
    last = {
      kind: 'line',
      type,
      old: type === '+' ? null : old++,
      new: type === '-' ? null : nu++,
      text: line.slice(1),
      index: index++,
      hunk,
    };
    rows.push(last);
  }
  return rows;
}

export const lineRows = (rows: Row[]): DiffRow[] => rows.filter((r): r is DiffRow => r.kind === 'line');

/** One row of the split view: the old side and the new side (either may be empty). */
export type SplitRow = { kind: 'hunk'; header: string } | { kind: 'pair'; left?: DiffRow; right?: DiffRow };

/** Context lines on both sides; a run of removed lines beside the added lines that follow it. */
export function splitRows(rows: Row[]): SplitRow[] {
  const out: SplitRow[] = [];
  let dels: DiffRow[] = [];
  let adds: DiffRow[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++)
      out.push({ kind: 'pair', left: dels[i], right: adds[i] });
    dels = [];
    adds = [];
  };
  for (const r of rows) {
    if (r.kind === 'hunk') {
      flush();
      out.push({ kind: 'hunk', header: r.header });
    } else if (r.type === '-') {
      if (adds.length) flush();
      dels.push(r);
    } else if (r.type === '+') adds.push(r);
    else {
      flush();
      out.push({ kind: 'pair', left: r, right: r });
    }
  }
  flush();
  return out;
}

/** The side a comment on this line counts its number on: a removed line only exists before the change. */
export function sideOf(r: DiffRow): { side: 'new' | 'old'; line: number } {
  return r.type === '-' ? { side: 'old', line: r.old! } : { side: 'new', line: r.new! };
}

/** highlight.js's name for a file's language, from its extension or name (undefined: shown plain). */
export function languageOf(path: string): string | undefined {
  const name = path.split('/').pop()!.toLowerCase();
  if (name === 'dockerfile') return 'dockerfile';
  if (name === 'makefile') return 'makefile';
  const ext = name.includes('.') ? name.split('.').pop()! : '';
  const map: Record<string, string> = {
    ts: 'typescript',
    tsx: 'typescript',
    mts: 'typescript',
    cts: 'typescript',
    js: 'javascript',
    jsx: 'javascript',
    mjs: 'javascript',
    cjs: 'javascript',
    py: 'python',
    rb: 'ruby',
    rs: 'rust',
    go: 'go',
    java: 'java',
    kt: 'kotlin',
    swift: 'swift',
    c: 'c',
    h: 'c',
    cc: 'cpp',
    cpp: 'cpp',
    hpp: 'cpp',
    cs: 'csharp',
    php: 'php',
    sh: 'bash',
    bash: 'bash',
    zsh: 'bash',
    json: 'json',
    yml: 'yaml',
    yaml: 'yaml',
    toml: 'ini',
    ini: 'ini',
    md: 'markdown',
    html: 'xml',
    xml: 'xml',
    svg: 'xml',
    css: 'css',
    scss: 'scss',
    less: 'less',
    sql: 'sql',
    lua: 'lua',
    pl: 'perl',
    r: 'r',
    diff: 'diff',
  };
  return map[ext];
}
