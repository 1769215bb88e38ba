/**
 * A command's answer (/status, /project, /sessions, /help…) is plain text of lines: this splits it
 * into blocks a page can lay out. Runs of "Key: value" lines become a table; runs of list lines
 * (numbered, arrowed, indented, commands) a monospace block; the rest stays text.
 */

export type NoticeBlock =
  | { kind: 'text'; text: string }
  | { kind: 'pairs'; rows: Array<[string, string]> }
  | { kind: 'lines'; lines: string[] };

const PAIR = /^([A-Za-z][^:]{0,39}):\s+(\S.*)$/;
const LIST = /^(?:→|\s{2,}|\d+[.)]\s|[-•*]\s|\/\w)/;

type Kind = NoticeBlock['kind'];

function kindOf(line: string): Kind {
  if (LIST.test(line)) return 'lines';
  if (PAIR.test(line)) return 'pairs';
  return 'text';
}

export function noticeBlocks(text: string): NoticeBlock[] {
  const runs: Array<{ kind: Kind; lines: string[] }> = [];
  for (const line of text.split('\n')) {
    const kind = kindOf(line);
    const last = runs.at(-1);
    if (last && last.kind === kind) last.lines.push(line);
    else runs.push({ kind, lines: [line] });
  }
  return runs.map((r): NoticeBlock => {
    // One "Key: value" line alone reads as a sentence.
    if (r.kind === 'pairs' && r.lines.length > 1)
      return { kind: 'pairs', rows: r.lines.map((l) => PAIR.exec(l)!.slice(1, 3) as [string, string]) };
    if (r.kind === 'lines') return { kind: 'lines', lines: r.lines };
    return { kind: 'text', text: r.lines.join('\n') };
  });
}
