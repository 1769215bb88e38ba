/**
 * An edit as a line diff (Edit, MultiEdit, Write, NotebookEdit). A long one shows its first lines
 * and a long line its first characters, so a phone is not flooded; one tap shows it whole. Lines
 * wrap rather than scroll sideways.
 */
import { useMemo, useState } from 'preact/hooks';
import { type DiffLine, lineDiff, withContext } from '../diff.js';
import type { ToolStep } from '../types.js';
import './Diff.css';
import { Reveal } from './Revealed.js';
import { ScrollPre } from './ScrollPre.js';

/** Lines shown before "Show all". */
export const DIFF_PREVIEW_LINES = 24;
/** Characters of one line shown before "Show all". */
export const DIFF_LINE_CHARS = 240;

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The fields of each diff tool that the diff draws (the tool step's input view leaves them out). */
export const DIFF_FIELDS = ['old_string', 'new_string', 'content', 'edits', 'new_source'] as const;

function edits(step: ToolStep): Array<{ before: string; after: string }> {
  const i = step.input;
  if (step.name === 'Write') return [{ before: '', after: str(i.content) }];
  if (step.name === 'NotebookEdit') return [{ before: '', after: str(i.new_source) }];
  if (step.name === 'MultiEdit' && Array.isArray(i.edits))
    return i.edits.map((e: Record<string, unknown>) => ({ before: str(e?.old_string), after: str(e?.new_string) }));
  return [{ before: str(i.old_string), after: str(i.new_string) }];
}

function Line({ l, whole }: { l: DiffLine; whole: boolean }) {
  const long = !whole && l.text.length > DIFF_LINE_CHARS;
  return (
    <span class={l.type === '+' ? 'add' : l.type === '-' ? 'del' : 'ctx'}>
      <span class="sign" aria-hidden="true">
        {l.type}
      </span>
      <Reveal text={long ? l.text.slice(0, DIFF_LINE_CHARS) : l.text} />
      {long && <span class="more-chars"> … {(l.text.length - DIFF_LINE_CHARS).toLocaleString()} more characters</span>}
      {'\n'}
    </span>
  );
}

export function Diff({ step }: { step: ToolStep }) {
  const [whole, setWhole] = useState(false);
  const parts = useMemo(() => edits(step).map((e) => withContext(lineDiff(e.before, e.after))), [step]);
  const lines = parts.reduce((n, p) => n + p.length, 0);
  const added = parts.reduce((n, p) => n + p.filter((l) => l?.type === '+').length, 0);
  const removed = parts.reduce((n, p) => n + p.filter((l) => l?.type === '-').length, 0);
  const longLines = parts.some((p) => p.some((l) => l && l.text.length > DIFF_LINE_CHARS));
  const cut = lines > DIFF_PREVIEW_LINES || longLines;
  let left = whole ? Number.POSITIVE_INFINITY : DIFF_PREVIEW_LINES;
  return (
    <div class="diff" data-testid="diff" data-whole={whole || !cut ? 'yes' : 'no'}>
      {parts.map((part, p) => {
        if (left <= 0) return null;
        const shown = part.slice(0, left);
        left -= shown.length;
        return (
          <ScrollPre key={p}>
            {shown.map((l, k) =>
              l === null ? (
                <span class="gap" key={k}>
                  ⋯{'\n'}
                </span>
              ) : (
                <Line key={k} l={l} whole={whole} />
              ),
            )}
          </ScrollPre>
        );
      })}
      <div class="diff-foot">
        <span class="diff-stat" data-testid="diff-stat">
          <span class="plus">+{added}</span> <span class="minus">−{removed}</span>
        </span>
        {cut && (
          <button
            type="button"
            class="quiet diff-more"
            data-testid="diff-expand"
            aria-expanded={whole}
            onClick={() => setWhole(!whole)}
          >
            {whole ? 'Show less' : lines > DIFF_PREVIEW_LINES ? `Show all ${lines} lines` : 'Show the whole lines'}
          </button>
        )}
      </div>
    </div>
  );
}
