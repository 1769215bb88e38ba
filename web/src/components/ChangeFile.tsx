/**
 * One changed file in the Changes view: its status (added, modified, deleted, renamed, binary),
 * its path (old → new for a rename), +/− counts and where the change sits (committed, staged, not
 * staged, new), then its diff. A file the gateway left out (too many changed lines, too long, past
 * the view's budget) says so with its count and is fetched whole on a tap.
 */
import { useState } from 'preact/hooks';
import { type DraftComment, fileKey, loadFull } from '../review.js';
import { useStore } from '../state.js';
import type { FileChange } from '../types.js';
import { DiffLines } from './DiffLines.js';
import { Reveal } from './Revealed.js';
import './ChangeFile.css';

const LETTER: Record<FileChange['status'], string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  unmerged: 'U',
};
const WHERE: Record<FileChange['section'], string> = {
  committed: 'committed',
  staged: 'staged',
  unstaged: 'not staged',
  untracked: 'new file',
};

function why(f: FileChange): string {
  const c = f.collapsed!;
  const lines = c.lines !== null ? `${c.lines.toLocaleString()} changed lines` : undefined;
  const size = c.bytes !== null ? `${Math.ceil(c.bytes / 1024).toLocaleString()} KB of diff` : undefined;
  const what = [lines, size].filter(Boolean).join(', ');
  if (c.reason === 'budget') return `Not shown to keep the page light${what ? ` (${what})` : ''}.`;
  return `A large change${what ? `: ${what}` : ''}.`;
}

export function Badge({ f }: { f: FileChange }) {
  return (
    <span class={`badge ${f.status}`} title={f.binary ? `${f.status}, binary` : f.status} data-testid="file-status">
      {f.binary ? 'B' : LETTER[f.status]}
    </span>
  );
}

export function Counts({ f }: { f: FileChange }) {
  if (f.directory) return <span class="counts dim">directory</span>;
  if (f.binary) return <span class="counts dim">binary</span>;
  return (
    <span class="counts">
      {f.added === null ? (
        <span class="dim">large</span>
      ) : (
        <>
          <span class="plus">+{f.added}</span> <span class="minus">−{f.deleted ?? 0}</span>
        </>
      )}
    </span>
  );
}

export function FileName({ f }: { f: FileChange }) {
  return (
    <span class="name">
      {f.oldPath !== undefined && (
        <>
          <Reveal text={f.oldPath} /> →{' '}
        </>
      )}
      <Reveal text={f.path} />
    </span>
  );
}

export function ChangeFile({ f, split, comments }: { f: FileChange; split: boolean; comments: DraftComment[] }) {
  const key = fileKey(f);
  const full = useStore((s) => s.changes?.full[key]);
  const [open, setOpen] = useState(true);
  const diff = f.diff ?? (full && typeof full === 'object' && 'diff' in full ? full.diff : undefined);
  const mode = f.oldMode && f.newMode ? `mode ${f.oldMode} → ${f.newMode}` : f.newMode ? `mode ${f.newMode}` : '';
  return (
    <section
      class="change-file"
      id={`file-${key}`}
      data-testid="change-file"
      data-path={f.path}
      data-section={f.section}
      data-status={f.status}
    >
      <button
        type="button"
        class="quiet file-head"
        aria-expanded={open}
        data-testid="file-toggle"
        onClick={() => setOpen(!open)}
      >
        <Badge f={f} />
        <FileName f={f} />
        <Counts f={f} />
      </button>
      <div class="file-meta dim">
        {WHERE[f.section]}
        {f.binary && ' · binary'}
        {f.similarity !== undefined && ` · ${f.similarity}% similar`}
        {mode && ` · ${mode}`}
      </div>
      {open &&
        (f.directory ? (
          <p class="file-note dim">A nested repository: git does not look inside it.</p>
        ) : f.binary ? (
          <p class="file-note dim">A binary file: no line diff to show.</p>
        ) : diff !== undefined ? (
          <>
            {full && typeof full === 'object' && 'truncated' in full && full.truncated && (
              <p class="file-note dim">Cut at {Math.round(full.bytes / 1024 / 1024)} MB.</p>
            )}
            <DiffLines file={f} diff={diff} split={split} comments={comments} />
          </>
        ) : (
          <div class="file-note collapsed" data-testid="file-collapsed">
            <span class="dim">{why(f)}</span>
            {full === 'loading' ? (
              <span class="dim">Loading…</span>
            ) : (
              <button type="button" data-testid="file-load" onClick={() => void loadFull(f)}>
                Show the diff
              </button>
            )}
            {full && typeof full === 'object' && 'error' in full && <span class="bad">{full.error}</span>}
          </div>
        ))}
    </section>
  );
}
