/**
 * The Changes view of the open conversation (loaded on first use, apart from the app's first
 * download): its branch against the base (ahead/behind), the files changed with their counts, the
 * committed changes apart from the uncommitted ones, each file's diff (unified; split side by side
 * when chosen on a wide screen), line comments gathered and sent to the agent as one message, and
 * the actions below. It reloads when a turn ends there.
 */
import { useEffect, useState } from 'preact/hooks';
import { moment } from '../format.js';
import { type DraftComment, fileKey, refreshChanges, sendComments, toggleChanges } from '../review.js';
import { countsText, lastMerge } from '../review-model.js';
import { useStore } from '../state.js';
import type { ChangesBody, FileChange, ReviewRecordView, Section } from '../types.js';
import { Badge, ChangeFile, Counts, FileName } from './ChangeFile.js';
import './Changes.css';
import { ReviewActions } from './ReviewActions.js';

const UNCOMMITTED: Section[] = ['staged', 'unstaged', 'untracked'];
const WIDE = '(min-width: 900px)';
const SPLIT_KEY = 'rudder-diff-split';

function useWide(): boolean {
  const [wide, setWide] = useState(() => matchMedia(WIDE).matches);
  useEffect(() => {
    const mq = matchMedia(WIDE);
    const on = () => setWide(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return wide;
}

function Summary({ body }: { body: ChangesBody }) {
  const set = body.changes;
  const t = set.totals;
  return (
    <div class="changes-summary" data-testid="changes-summary">
      <div class="branches">
        <code data-testid="changes-branch">{set.branch ?? '(detached HEAD)'}</code>
        {set.base && (
          <>
            <span aria-hidden="true"> → </span>
            <code data-testid="changes-base">{set.base.name}</code>
          </>
        )}
      </div>
      <div class="dim" data-testid="changes-counts">
        {countsText(body)}
        {t.files > 0 && (
          <>
            {' · '}
            <span class="plus">+{t.added}</span> <span class="minus">−{t.deleted}</span>
          </>
        )}
      </div>
      {body.readOnly && <p class="note">Read-only: the project's working tree against its last commit.</p>}
    </div>
  );
}

function FileIndex({ files }: { files: FileChange[] }) {
  if (files.length < 2) return null;
  return (
    <ul class="file-index" data-testid="file-index">
      {files.map((f) => (
        <li key={fileKey(f)}>
          <button
            type="button"
            class="quiet"
            onClick={() => document.getElementById(`file-${fileKey(f)}`)?.scrollIntoView({ block: 'start' })}
          >
            <Badge f={f} />
            <FileName f={f} />
            <Counts f={f} />
          </button>
        </li>
      ))}
    </ul>
  );
}

function Group(props: {
  title: string;
  files: FileChange[];
  omitted: number;
  split: boolean;
  comments: DraftComment[];
  testid: string;
}) {
  const { title, files, omitted, split, comments, testid } = props;
  if (!files.length && !omitted) return null;
  return (
    <section class="change-group" data-testid={testid}>
      <h2>{title}</h2>
      {files.map((f) => (
        <ChangeFile
          key={fileKey(f)}
          f={f}
          split={split}
          comments={comments.filter((c) => c.path === f.path && c.section === f.section)}
        />
      ))}
      {omitted > 0 && <p class="dim">… and {omitted} more files, not listed.</p>}
    </section>
  );
}

function CommentTray({ comments }: { comments: DraftComment[] }) {
  const acting = useStore((s) => s.changes?.acting);
  if (!comments.length) return null;
  const files = new Set(comments.map((c) => c.path)).size;
  const n = comments.length;
  return (
    <div class="comment-tray" data-testid="comment-tray">
      <span>
        {n} comment{n === 1 ? '' : 's'} on {files} file{files === 1 ? '' : 's'}
      </span>
      <button
        type="button"
        class="primary"
        data-testid="send-comments"
        disabled={!!acting}
        onClick={() => void sendComments()}
      >
        {acting === 'comments' ? 'Sending…' : 'Send to the agent'}
      </button>
    </div>
  );
}

const NO_REVIEWS = new Map<number, ReviewRecordView>();

/** Nothing to show: after a merge, that it was merged and nothing is new since; else that nothing changed yet. */
function NoChanges() {
  const reviews = useStore((s) => s.conv?.reviews ?? NO_REVIEWS);
  const last = lastMerge(reviews, true);
  const base = last?.result && 'base' in last.result ? last.result.base : undefined;
  return (
    <p class="dim" data-testid="no-changes">
      {last && base ? `Merged into ${base} at ${moment(last.at)}; nothing new since.` : 'No changes yet.'}
    </p>
  );
}

export function Changes() {
  const c = useStore((s) => s.changes);
  const wide = useWide();
  const [splitChosen, setSplit] = useState(() => localStorage.getItem(SPLIT_KEY) === '1');
  const split = wide && splitChosen;
  if (!c) return null;
  const body = c.body;
  const set = body?.changes;
  const uncommitted = set ? UNCOMMITTED.flatMap((s) => set.sections[s].files) : [];
  const omitted = set ? UNCOMMITTED.reduce((n, s) => n + set.sections[s].omitted, 0) : 0;
  const committed = set?.sections.committed;
  const ahead = set?.base?.ahead ?? 0;
  return (
    <div class="changes" data-testid="changes" data-loading={c.loading ? 'yes' : 'no'}>
      <div class="changes-bar">
        <button type="button" class="quiet" data-testid="changes-back" onClick={() => toggleChanges(false)}>
          ← Conversation
        </button>
        <span class="grow" />
        {body && !body.readOnly && (
          <button
            type="button"
            class="quiet"
            data-testid="jump-actions"
            onClick={() => document.getElementById('review-actions')?.scrollIntoView({ block: 'start' })}
          >
            Actions ↓
          </button>
        )}
        {wide && (
          <button
            type="button"
            class="quiet"
            data-testid="split-toggle"
            aria-pressed={split}
            onClick={() => {
              localStorage.setItem(SPLIT_KEY, split ? '0' : '1');
              setSplit(!split);
            }}
          >
            {split ? 'Unified' : 'Split'}
          </button>
        )}
        <button
          type="button"
          class="quiet"
          data-testid="changes-refresh"
          disabled={c.loading}
          onClick={() => void refreshChanges()}
        >
          {c.loading ? 'Loading…' : 'Refresh'}
        </button>
      </div>
      <div class="changes-scroll">
        <div class="changes-content">
          {c.error && (
            <p
              class={`changes-error${c.error.code === 'REVIEW_NO_WORKTREE' ? ' dim' : ''}`}
              data-testid="changes-error"
            >
              {c.error.message}
            </p>
          )}
          {!body && !c.error && <p class="dim">Loading the changes…</p>}
          {body && set && (
            <>
              <Summary body={body} />
              {set.totals.files === 0 && <NoChanges />}
              <FileIndex files={[...(committed?.files ?? []), ...uncommitted]} />
              {committed && (
                <Group
                  title={`Committed on this branch (${ahead} commit${ahead === 1 ? '' : 's'})`}
                  files={committed.files}
                  omitted={committed.omitted}
                  split={split}
                  comments={c.comments}
                  testid="committed"
                />
              )}
              <Group
                title="Not committed yet"
                files={uncommitted}
                omitted={omitted}
                split={split}
                comments={c.comments}
                testid="uncommitted"
              />
              <ReviewActions body={body} />
            </>
          )}
        </div>
      </div>
      <CommentTray comments={c.comments} />
    </div>
  );
}
