/**
 * Cuts Markdown into the pieces every platform renderer treats differently: fenced code blocks,
 * inline code spans, links, bare URLs, and plain prose. Renderers format prose with inline rules
 * and pass code through untouched, so formatting never leaks into code.
 */

export type Segment =
  | { kind: 'fence'; lang: string; code: string }
  | { kind: 'code'; code: string }
  | { kind: 'link'; text: string; url: string }
  | { kind: 'url'; url: string }
  | { kind: 'text'; text: string };

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})([^`\n]*)$/;

/** Splits out fenced code blocks; what is left is prose with inline code. */
function splitFences(md: string): Array<{ fence: true; lang: string; code: string } | { fence: false; text: string }> {
  const out: Array<{ fence: true; lang: string; code: string } | { fence: false; text: string }> = [];
  const lines = md.split('\n');
  let prose: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = FENCE_OPEN.exec(lines[i]!);
    if (!m) {
      prose.push(lines[i]!);
      continue;
    }
    if (prose.length > 0) out.push({ fence: false, text: prose.join('\n') });
    prose = [];
    const marker = m[1]!;
    const body: string[] = [];
    for (i = i + 1; i < lines.length; i++) {
      const l = lines[i]!.trimEnd();
      if (l.trimStart().startsWith(marker) && l.trim().replace(/^[`~]+/, '') === '' && l.trim()[0] === marker[0]) break;
      body.push(lines[i]!);
    }
    out.push({ fence: true, lang: m[2]!.trim().split(/\s+/)[0] ?? '', code: body.join('\n') });
  }
  if (prose.length > 0) out.push({ fence: false, text: prose.join('\n') });
  return out;
}

// The alternatives in order (their groups are numbered across the whole): inline code, a link, a bare URL.
const INLINE_CODE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/.source;
const INLINE_LINK = /\[([^\]\n]+)\]\((https?:\/\/[^)\s]+|mailto:[^)\s]+)\)/.source;
const INLINE_URL = /(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/.source;
const INLINE = new RegExp(`${INLINE_CODE}|${INLINE_LINK}|${INLINE_URL}`, 'g');

/** Segments Markdown into fences, inline code, links, bare URLs and prose, in order. */
export function segment(md: string): Segment[] {
  const out: Segment[] = [];
  // NUL is reserved for placeholders while formatting; it has no place in chat text.
  for (const part of splitFences(md.replace(/\u0000/g, ''))) {
    if (part.fence) {
      out.push({ kind: 'fence', lang: part.lang, code: part.code }, { kind: 'text', text: '\n' });
      continue;
    }
    let last = 0;
    for (const m of part.text.matchAll(INLINE)) {
      const at = m.index ?? 0;
      if (at > last) out.push({ kind: 'text', text: part.text.slice(last, at) });
      if (m[1] !== undefined) out.push({ kind: 'code', code: m[2]!.replace(/^ (.*) $/s, '$1') });
      else if (m[3] !== undefined) out.push({ kind: 'link', text: m[3], url: m[4]! });
      else out.push({ kind: 'url', url: m[5]! });
      last = at + m[0].length;
    }
    if (last < part.text.length) out.push({ kind: 'text', text: part.text.slice(last) });
    // The next part (a fence) starts on its own line; keep the line break between them.
    out.push({ kind: 'text', text: '\n' });
  }
  // A line break follows every prose run and fence; the last one is not in the source.
  const tail = out[out.length - 1];
  if (tail && tail.kind === 'text' && tail.text === '\n') out.pop();
  return mergeText(out);
}

function mergeText(segs: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segs) {
    const prev = out[out.length - 1];
    if (s.kind === 'text' && prev?.kind === 'text') prev.text += s.text;
    else out.push(s.kind === 'text' ? { ...s } : s);
  }
  return out;
}

/**
 * Applies inline emphasis rules to one run of prose. Each rule wraps its match through `wrap`,
 * which receives the already-formatted inner text. Markers must hug the text (`**x**`, not `** x **`)
 * and underscores inside words (snake_case) are left alone.
 */
export function emphasis(
  text: string,
  wrap: { bold(s: string): string; italic(s: string): string; strike(s: string): string },
): string {
  const BOLD = /\*\*(?=\S)([\s\S]*?\S)\*\*|(?<![\w])__(?=\S)([\s\S]*?\S)__(?![\w])/g;
  const ITALIC = /(?<![\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])|(?<![\w])_(?=[^\s_])([^_\n]*?[^\s_])_(?![\w])/g;
  const STRIKE = /~~(?=\S)([\s\S]*?\S)~~/g;
  // Placeholders keep one rule's output from being matched by the next rule.
  const held: string[] = [];
  const hold = (s: string) => `\u0000${held.push(s) - 1}\u0000`;
  let out = text.replace(BOLD, (_m, a?: string, b?: string) => hold(wrap.bold(emphasis(a ?? b ?? '', wrap))));
  out = out.replace(STRIKE, (_m, a: string) => hold(wrap.strike(a)));
  out = out.replace(ITALIC, (_m, a?: string, b?: string) => hold(wrap.italic(a ?? b ?? '')));
  return unhold(out, held);
}

function unhold(s: string, held: string[]): string {
  let out = s;
  // Held pieces can contain other holds (nested emphasis); resolve until none are left.
  for (let i = 0; i < 8 && out.includes('\u0000'); i++) {
    out = out.replace(/\u0000(\d+)\u0000/g, (_m, n: string) => held[Number(n)] ?? '');
  }
  return out;
}

/**
 * Formats prose line by line: headings, block quotes, bullets, and plain lines each go through
 * their rule with the raw line content. When the prose does not start at a line start (it follows
 * inline code or a link), its first line is plain.
 */
export function proseLines(
  text: string,
  atLineStart: boolean,
  rules: {
    heading(s: string): string;
    quote(s: string): string;
    bullet(indent: string, s: string): string;
    plain(s: string): string;
  },
): string {
  return text
    .split('\n')
    .map((line, i) => {
      if (i === 0 && !atLineStart) return rules.plain(line);
      const h = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
      if (h) return rules.heading(h[1]!);
      const q = /^ {0,3}>\s?(.*)$/.exec(line);
      if (q) return rules.quote(q[1]!);
      const b = /^(\s*)[-*+]\s+(.*)$/.exec(line);
      if (b) return rules.bullet(b[1]!, b[2]!);
      return rules.plain(line);
    })
    .join('\n');
}

/** Whether each segment starts at the beginning of a line. */
export function lineStarts(segs: Segment[]): boolean[] {
  let atStart = true;
  return segs.map((s) => {
    const here = atStart;
    if (s.kind === 'fence') atStart = true;
    else if (s.kind === 'text') atStart = s.text.endsWith('\n') || (here && s.text === '');
    else atStart = false;
    return here;
  });
}

/** A heading is already bold; bold markers inside it would nest or close it early. */
export function unbold(s: string): string {
  return s.replace(/\*\*|__/g, '');
}

/** Renders Markdown segment by segment; `each` learns whether its segment begins a line. */
export function renderSegments(md: string, each: (s: Segment, lineStart: boolean) => string): string {
  const segs = segment(md);
  const starts = lineStarts(segs);
  return segs.map((s, i) => each(s, starts[i] ?? true)).join('');
}
