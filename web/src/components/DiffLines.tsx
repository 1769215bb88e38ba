/**
 * A file's diff in the Changes view: unified (a phone), or split side by side (a desktop, when
 * chosen), each line with its numbers, highlighted by the lazy highlighter a hunk side at a time
 * (a file holding hidden characters is shown plain, each one revealed). A tap on a line selects it;
 * a tap on another line of the same side makes a range; the form under it adds a comment. A long
 * diff shows its first lines until "Show all" is tapped. Unified lines keep their layout and
 * scroll sideways inside their box; split lines wrap. A phone shows one column of line numbers (the
 * new side's, the old side's for a removed line). For a keyboard a diff is one Tab stop, the arrow
 * keys move between its lines; each line says whether it was added or removed.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { usePhone } from '../hooks.js';
import { highlightLines } from '../render.js';
import { addComment, type DraftComment, removeComment } from '../review.js';
import type { FileChange } from '../types.js';
import { type DiffRow, diffRows, languageOf, lineRows, type Row, sideOf, splitRows } from '../unified.js';
import { RevealedText, revealInvisible } from './Revealed.js';
import './DiffLines.css';

/** Line rows shown before "Show all". */
export const PREVIEW_ROWS = 80;

interface Selection {
  side: 'new' | 'old';
  from: number;
  to: number;
  /** The row the form goes under: the selection's last line in the diff. */
  after: number;
}

type Highlighted = Map<number, string>;

/** Each hunk's old side (context and removed lines) and new side highlighted as texts of their own. */
async function highlight(rows: DiffRow[], language: string): Promise<Highlighted | undefined> {
  const out: Highlighted = new Map();
  const hunks = new Map<number, DiffRow[]>();
  for (const r of rows) hunks.set(r.hunk, [...(hunks.get(r.hunk) ?? []), r]);
  for (const list of hunks.values()) {
    for (const side of ['-', '+'] as const) {
      const mine = list.filter((r) => r.type === ' ' || r.type === side);
      if (!mine.length) continue;
      const html = await highlightLines(
        language,
        mine.map((r) => r.text),
      );
      if (!html) return undefined;
      // A context line is drawn once: its new side's colours.
      mine.forEach((r, i) => {
        if (r.type !== ' ' || side === '+') out.set(r.index, html[i]!);
      });
    }
  }
  return out;
}

function Code({ row, html }: { row: DiffRow; html: string | undefined }) {
  return (
    <span class="code">
      <span class="sign" aria-hidden="true">
        {row.type}
      </span>
      {html !== undefined ? (
        <span dangerouslySetInnerHTML={{ __html: html }} />
      ) : (
        <RevealedText revealed={revealInvisible(row.text)} />
      )}
      {row.noNewline && <span class="no-newline"> ⏎ no newline at end</span>}
    </span>
  );
}

const kindOf = (r: DiffRow) => (r.type === '+' ? 'add' : r.type === '-' ? 'del' : 'ctx');

/** What a screen reader hears first: added or removed, and the line's number on its side. */
function spoken(r: DiffRow): string {
  const { line } = sideOf(r);
  return `${r.type === '+' ? 'Added line' : r.type === '-' ? 'Removed line' : 'Line'} ${line}: `;
}

const LINE = '[data-testid="diff-line"]';

/** The arrow keys, Home and End move the focus between a diff's lines (the diff is one Tab stop). */
function moveAmongLines(e: KeyboardEvent): void {
  const here = (e.target as HTMLElement).closest<HTMLElement>(LINE);
  const box = here?.closest('.diff-lines');
  if (!here || !box) return;
  const all = [...box.querySelectorAll<HTMLElement>(LINE)];
  const at = all.indexOf(here);
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  all[Math.max(0, Math.min(all.length - 1, to))]?.focus();
}

/** A line is a button: a tap, a click, Enter or Space picks it for a comment; one line of a diff is a Tab stop. */
const pressable = (onPick: () => void, key: string, tabStop: string, onFocus: (key: string) => void) => ({
  role: 'button' as const,
  tabIndex: key === tabStop ? 0 : -1,
  onClick: onPick,
  onFocus: () => onFocus(key),
  onKeyDown: (e: KeyboardEvent) => {
    if (e.key !== 'Enter' && e.key !== ' ') return moveAmongLines(e);
    e.preventDefault();
    onPick();
  },
});

/** The form under a selection; its text lives with the selection, so extending the range keeps it. */
function CommentForm(props: {
  sel: Selection;
  file: FileChange;
  text: string;
  setText(t: string): void;
  onDone(): void;
}) {
  const { sel, file, text, setText, onDone } = props;
  const label = sel.from === sel.to ? `line ${sel.from}` : `lines ${sel.from}–${sel.to}`;
  const add = (e: Event) => {
    e.preventDefault();
    if (!text.trim()) return;
    addComment({
      path: file.path,
      ...(file.oldPath ? { oldPath: file.oldPath } : {}),
      section: file.section,
      side: sel.side,
      line: sel.from,
      ...(sel.to !== sel.from ? { endLine: sel.to } : {}),
      text,
    });
    onDone();
  };
  return (
    <form class="comment-form" data-testid="comment-form" onSubmit={add}>
      <label for="comment-text">
        Comment on {label}
        {sel.side === 'old' ? ' (before the change)' : ''}
        <span class="dim"> · tap another line to {sel.from === sel.to ? 'make a range' : 'extend it'}</span>
      </label>
      <textarea
        id="comment-text"
        data-testid="comment-input"
        rows={3}
        value={text}
        placeholder="What should the agent change here?"
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        ref={(el) => el?.focus({ preventScroll: true })}
      />
      <div class="row">
        <button type="submit" class="primary" data-testid="comment-add" disabled={!text.trim()}>
          Add comment
        </button>
        <button type="button" data-testid="comment-cancel" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Drafts({ comments }: { comments: DraftComment[] }) {
  if (!comments.length) return null;
  return (
    <>
      {comments.map((c) => (
        <div class="draft-comment" data-testid="draft-comment" key={c.key}>
          <span class="dim">
            Your comment on {c.endLine ? `lines ${c.line}–${c.endLine}` : `line ${c.line}`} (not sent yet)
          </span>
          <p>{c.text}</p>
          <button type="button" class="quiet" data-testid="comment-remove" onClick={() => removeComment(c.key)}>
            Remove
          </button>
        </div>
      ))}
    </>
  );
}

export function DiffLines(props: { file: FileChange; diff: string; split: boolean; comments: DraftComment[] }) {
  const { file, diff, split, comments } = props;
  const rows = useMemo(() => diffRows(diff), [diff]);
  const lines = useMemo(() => lineRows(rows), [rows]);
  const [all, setAll] = useState(lines.length <= PREVIEW_ROWS + 20);
  const [sel, setSel] = useState<Selection | undefined>();
  const [text, setText] = useState('');
  const done = () => {
    setSel(undefined);
    setText('');
  };
  const [hl, setHl] = useState<Highlighted | undefined>();
  const phone = usePhone();
  /** The line that is the diff's Tab stop: the last one focused (the first line until then). */
  const [focusedKey, setTabStop] = useState<string | undefined>();

  useEffect(() => {
    setHl(undefined);
    const language = languageOf(file.path);
    if (!language || lines.some((r) => revealInvisible(r.text).changed)) return;
    let live = true;
    void highlight(lines, language).then((h) => live && setHl(h));
    return () => {
      live = false;
    };
  }, [lines, file.path]);

  const pick = (r: DiffRow) => {
    const { side, line } = sideOf(r);
    if (sel && sel.side === side && (sel.from !== line || sel.to !== line)) {
      const from = Math.min(sel.from, line);
      const to = Math.max(sel.to, line);
      return setSel({ side, from, to, after: Math.max(sel.after, r.index) });
    }
    if (sel && sel.from === line && sel.to === line && sel.side === side) return done();
    setSel({ side, from: line, to: line, after: r.index });
  };
  const picked = (r: DiffRow) => {
    if (!sel) return false;
    const { side, line } = sideOf(r);
    return side === sel.side && line >= sel.from && line <= sel.to;
  };
  const under = (r: DiffRow) => {
    const mine = comments.filter((c) => {
      const end = c.endLine ?? c.line;
      const { side, line } = sideOf(r);
      return c.side === side && end === line;
    });
    return (
      <>
        <Drafts comments={mine} />
        {sel?.after === r.index && <CommentForm sel={sel} file={file} text={text} setText={setText} onDone={done} />}
      </>
    );
  };

  const shown: Row[] = all ? rows : rows.filter((r) => r.kind === 'hunk' || r.index < PREVIEW_ROWS);
  const pairs = split ? splitRows(shown) : [];
  const keys = split
    ? pairs.flatMap((p) =>
        p.kind === 'pair' ? [p.left && `${p.left.index}:0`, p.right && `${p.right.index}:1`].filter(Boolean) : [],
      )
    : lineRows(shown).map((r) => `${r.index}:u`);
  const tabStop = focusedKey && keys.includes(focusedKey) ? focusedKey : (keys[0] ?? '');
  const line = (r: DiffRow) => (
    <div key={r.index}>
      <div
        class={`dl ${kindOf(r)}${picked(r) ? ' picked' : ''}`}
        data-testid="diff-line"
        data-old={r.old ?? ''}
        data-new={r.new ?? ''}
        data-type={kindOf(r)}
        {...pressable(() => pick(r), `${r.index}:u`, tabStop, setTabStop)}
      >
        <span class="sr-only">{spoken(r)}</span>
        <span class="ln" aria-hidden="true">
          {phone ? (
            <span>{sideOf(r).line}</span>
          ) : (
            <>
              <span>{r.old ?? ''}</span>
              <span>{r.new ?? ''}</span>
            </>
          )}
        </span>
        <Code row={r} html={hl?.get(r.index)} />
      </div>
      {under(r)}
    </div>
  );

  const half = (r: DiffRow | undefined, k: 0 | 1) =>
    r ? (
      <div
        key={k}
        class={`half dl ${kindOf(r)}${picked(r) ? ' picked' : ''}`}
        data-testid="diff-line"
        data-old={r.old ?? ''}
        data-new={r.new ?? ''}
        data-type={kindOf(r)}
        {...pressable(() => pick(r), `${r.index}:${k}`, tabStop, setTabStop)}
      >
        <span class="sr-only">{spoken(r)}</span>
        <span class="ln" aria-hidden="true">
          <span>{(k === 0 ? r.old : r.new) ?? ''}</span>
        </span>
        <Code row={r} html={hl?.get(r.index)} />
      </div>
    ) : (
      <div key={k} class="half empty" />
    );

  return (
    <div class={`diff-lines${split ? ' split' : ''}`} data-testid="diff-lines" data-highlighted={hl ? 'yes' : 'no'}>
      {split ? (
        <div class="split-rows">
          {pairs.map((p, i) =>
            p.kind === 'hunk' ? (
              <div class="hunk" key={`h${i}`}>
                {p.header}
              </div>
            ) : (
              <div key={`p${i}`}>
                <div class="sl">
                  {half(p.left, 0)}
                  {half(p.right, 1)}
                </div>
                {p.left && p.left !== p.right && under(p.left)}
                {p.right && under(p.right)}
              </div>
            ),
          )}
        </div>
      ) : (
        <div class="scroll">
          <div class="rows">
            {shown.map((r) =>
              r.kind === 'hunk' ? (
                <div class="hunk" key={`h${r.hunk}`}>
                  {r.header}
                </div>
              ) : (
                line(r)
              ),
            )}
          </div>
        </div>
      )}
      {!all && (
        <button type="button" class="quiet show-all" data-testid="show-all-lines" onClick={() => setAll(true)}>
          Show all {lines.length.toLocaleString()} lines
        </button>
      )}
    </div>
  );
}
