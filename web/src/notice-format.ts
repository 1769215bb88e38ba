/**
 * A command's answer (/status, /project, /diff, /help…) is text of lines, written for every chat, so
 * with Markdown where a chat renders it: this splits it into blocks a page can lay out. A fenced
 * block or a table stays Markdown (drawn as the agent's text is: a diff as a diff, a table as a
 * table); runs of "Key: value" lines become a table; runs of list lines (numbered, arrowed,
 * indented, commands) a monospace block; the rest stays text.
 */

export type NoticeBlock =
  | { kind: 'text'; text: string }
  | { kind: 'pairs'; rows: Array<[string, string]> }
  | { kind: 'lines'; lines: string[] }
  | { kind: 'markdown'; text: string };

const PAIR = /^([A-Za-z][^:]{0,39}):\s+(\S.*)$/;
const LIST = /^(?:→|\s{2,}|\d+[.)]\s|[-•*]\s|\/\w)/;
const FENCE = /^(`{3,}|~{3,})/;
const TABLE_RULE = /^\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$/;

type Kind = Exclude<NoticeBlock['kind'], 'markdown'>;

function kindOf(line: string): Kind {
  if (LIST.test(line)) return 'lines';
  if (PAIR.test(line)) return 'pairs';
  return 'text';
}

/** Where the Markdown block starting at line i ends (exclusive), or undefined when none starts there. */
function markdownEnd(lines: string[], i: number): number | undefined {
  const open = FENCE.exec(lines[i]!)?.[1];
  if (open) {
    const close = new RegExp(`^${open[0] === '`' ? '`' : '~'}{${open.length},}\\s*$`);
    for (let j = i + 1; j < lines.length; j++) if (close.test(lines[j]!)) return j + 1;
    return lines.length;
  }
  if (!lines[i]!.startsWith('|') || !TABLE_RULE.test(lines[i + 1] ?? '')) return undefined;
  let j = i + 2;
  while (j < lines.length && lines[j]!.startsWith('|')) j++;
  return j;
}

export function noticeBlocks(text: string): NoticeBlock[] {
  const blocks: NoticeBlock[] = [];
  const runs: Array<{ kind: Kind; lines: string[] }> = [];
  const flush = () => {
    for (const r of runs.splice(0)) {
      // One "Key: value" line alone reads as a sentence.
      if (r.kind === 'pairs' && r.lines.length > 1)
        blocks.push({ kind: 'pairs', rows: r.lines.map((l) => PAIR.exec(l)!.slice(1, 3) as [string, string]) });
      else if (r.kind === 'lines') blocks.push({ kind: 'lines', lines: r.lines });
      else blocks.push({ kind: 'text', text: r.lines.join('\n') });
    }
  };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const end = markdownEnd(lines, i);
    if (end !== undefined) {
      flush();
      blocks.push({ kind: 'markdown', text: lines.slice(i, end).join('\n') });
      i = end - 1;
      continue;
    }
    const line = lines[i]!;
    const kind = kindOf(line);
    const last = runs.at(-1);
    if (last && last.kind === kind) last.lines.push(line);
    else runs.push({ kind, lines: [line] });
  }
  flush();
  return blocks;
}
