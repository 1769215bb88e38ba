/**
 * Splits Markdown into parts no longer than a platform's limit. Cuts prefer paragraph breaks, then
 * line breaks, then spaces. A fenced code block is never cut open: a part that ends inside one
 * closes the fence, and the next part reopens it with the same info string (language tag).
 */

interface TextBlock {
  kind: 'text';
  text: string;
}

interface CodeBlock {
  kind: 'code';
  /** The opening fence line as written, e.g. "```ts". */
  open: string;
  body: string[];
  /** The closing fence line, absent when the source never closed the block. */
  close?: string;
}

type Block = TextBlock | CodeBlock;

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Breaks text into paragraphs and fenced code blocks, with the line breaks between them. */
function parseBlocks(text: string): { blocks: Block[]; seps: string[] } {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  const seps: string[] = [];
  let para: string[] = [];
  let pendingSep = '';
  const pushBlock = (b: Block) => {
    if (blocks.length > 0) seps.push('\n' + pendingSep);
    pendingSep = '';
    blocks.push(b);
  };
  const flushPara = () => {
    if (para.length > 0) pushBlock({ kind: 'text', text: para.join('\n') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = FENCE.exec(line);
    if (m && !(m[1]!.startsWith('`') && m[2]!.includes('`'))) {
      flushPara();
      const marker = m[1]!;
      const body: string[] = [];
      let close: string | undefined;
      for (i = i + 1; i < lines.length; i++) {
        const l = lines[i]!;
        const c = FENCE.exec(l);
        if (c && c[1]![0] === marker[0] && c[1]!.length >= marker.length && c[2]!.trim() === '') {
          close = l;
          break;
        }
        body.push(l);
      }
      pushBlock({ kind: 'code', open: line, body, close });
      continue;
    }
    if (line.trim() === '') {
      flushPara();
      // Blank lines between blocks are kept exactly, so an unsplit text round-trips.
      pendingSep += '\n';
      continue;
    }
    para.push(line);
  }
  flushPara();
  // Leading and trailing blank lines are dropped: they are not worth a part of their own.
  return { blocks, seps };
}

/** Index at or before `max` that does not split a surrogate pair. */
function safeCut(s: string, max: number): number {
  if (max >= s.length) return s.length;
  const code = s.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/** Splits one line (no newlines) into pieces ≤ limit, preferring to cut after whitespace. */
function splitLine(line: string, limit: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > limit) {
    // A space at index limit - 1 at the latest: the piece keeps it, so it is at most limit long.
    let cut = rest.lastIndexOf(' ', limit - 1);
    if (cut < limit / 2) cut = safeCut(rest, limit);
    else cut += 1;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

/**
 * Packs lines into chunks joined by "\n": the first chunk ≤ firstLimit, the rest ≤ limit. Lines
 * longer than limit are cut. The first chunk is "" when not even one line fits in firstLimit.
 */
function packLines(lines: string[], limit: number, firstLimit = limit): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  const cap = () => (out.length === 0 ? firstLimit : limit);
  for (const line of lines) {
    for (const piece of line.length > limit ? splitLine(line, limit) : [line]) {
      if (cur === undefined) {
        if (piece.length > cap()) out.push('');
        cur = piece;
      } else if (cur.length + 1 + piece.length <= cap()) cur += '\n' + piece;
      else {
        out.push(cur);
        cur = piece;
      }
    }
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

function closingFor(block: CodeBlock): string {
  return FENCE.exec(block.open)![1]!;
}

function renderCode(block: CodeBlock): string {
  return [block.open, ...block.body, ...(block.close !== undefined ? [block.close] : [])].join('\n');
}

/** Splits a code block into self-contained fenced pieces: the first ≤ firstLimit, the rest ≤ limit. */
function splitCode(block: CodeBlock, limit: number, firstLimit = limit): string[] {
  const close = closingFor(block);
  const overhead = block.open.length + close.length + 2;
  const chunks = packLines(block.body, Math.max(1, limit - overhead), Math.max(0, firstLimit - overhead));
  return chunks.map((chunk, i) => {
    if (i === 0 && chunk === '' && chunks.length > 1) return '';
    const end = i === chunks.length - 1 ? block.close : close;
    return end !== undefined ? `${block.open}\n${chunk}\n${end}` : `${block.open}\n${chunk}`;
  });
}

/**
 * Splits Markdown text into parts of at most `limit` UTF-16 code units. Every part that cuts
 * through a fenced code block closes it, and the next part reopens it with the same fence line.
 */
export function splitMarkdown(text: string, limit: number): string[] {
  if (limit < 16) throw new RangeError(`limit must be at least 16, got ${limit}`);
  if (text.length <= limit) return [text];
  const { blocks, seps } = parseBlocks(text);
  const parts: string[] = [];
  let cur = '';
  blocks.forEach((block, i) => {
    const rendered = block.kind === 'code' ? renderCode(block) : block.text;
    const sep = i === 0 ? '' : (seps[i - 1] ?? '\n');
    if (cur !== '' && cur.length + sep.length + rendered.length <= limit) {
      cur += sep + rendered;
      return;
    }
    if (rendered.length <= limit) {
      if (cur !== '') parts.push(cur);
      cur = rendered;
      return;
    }
    // The block needs cutting anyway: start it in the room left in the current part.
    const room = cur === '' ? limit : limit - cur.length - sep.length;
    const useRoom = cur !== '' && room >= limit / 4;
    const first = useRoom ? room : limit;
    const pieces =
      block.kind === 'code' ? splitCode(block, limit, first) : packLines(block.text.split('\n'), limit, first);
    if (useRoom && pieces[0] !== '') cur += sep + pieces[0];
    if (cur !== '') parts.push(cur);
    const rest = useRoom || pieces[0] === '' ? pieces.slice(1) : pieces;
    parts.push(...rest.slice(0, -1));
    cur = rest[rest.length - 1] ?? '';
  });
  if (cur !== '') parts.push(cur);
  return parts;
}

/**
 * Splits Markdown, renders each part for a platform, and re-splits any part whose rendered form
 * measures over the limit (escaping can make text longer), so every returned part fits.
 */
export function fitParts(
  text: string,
  limit: number,
  render: (markdown: string) => string,
  measure: (rendered: string) => number = (s) => s.length,
): string[] {
  const out: string[] = [];
  const fit = (md: string, budget: number, depth: number): void => {
    for (const part of splitMarkdown(md, budget)) {
      const rendered = render(part);
      const size = measure(rendered);
      if (size <= limit || depth >= 6 || part.length <= 16) {
        out.push(rendered);
        continue;
      }
      const smaller = Math.max(16, Math.floor((budget * limit) / size) - 8);
      fit(part, Math.min(smaller, part.length - 1), depth + 1);
    }
  };
  fit(text, limit, 0);
  return out;
}
