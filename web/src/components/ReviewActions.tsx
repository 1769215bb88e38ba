/**
 * What can be done with the conversation's work, below its changes: commit (a message the person
 * writes, or one the agent proposes on request), merge into the base, push, open a pull request
 * (or why not), and discard the uncommitted changes after a confirmation that names every path,
 * ignored ones included. Each button says what it does and to what; the last outcome stays shown.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  askDiscard,
  cancelDiscard,
  commit,
  confirmDiscard,
  merge,
  openPullRequest,
  type PageAction,
  proposeCommit,
  push,
} from '../review.js';
import { useStore } from '../state.js';
import type { ChangesBody } from '../types.js';
import { Reveal } from './Revealed.js';
import './ReviewActions.css';

const EMPTY = new Map();

/** The agent's proposal, from its reply: the first fenced block, else the whole text. */
function proposalText(reply: string): string {
  const fenced = /```[a-z]*\n([\s\S]*?)```/.exec(reply);
  return (fenced ? fenced[1]! : reply).trim();
}

function Busy({ action, acting, label }: { action: PageAction; acting?: PageAction; label: string }) {
  return <>{acting === action ? `${label}…` : label}</>;
}

/** Brought into view when it appears: the button that asked may be further down, on a phone. */
function useShown<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (key) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [key]);
  return ref;
}

function Outcome() {
  const outcome = useStore((s) => s.changes?.outcome);
  const ref = useShown<HTMLDivElement>(outcome);
  if (!outcome) return null;
  return (
    <div
      ref={ref}
      class={`review-outcome${outcome.ok ? '' : ' failed'}`}
      role="status"
      data-testid="review-outcome"
      data-action={outcome.action}
      data-ok={outcome.ok ? 'yes' : 'no'}
    >
      <p>{outcome.text}</p>
      {outcome.files && (
        <ul data-testid="conflict-files">
          {outcome.files.map((f) => (
            <li key={f}>
              <Reveal text={f} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Discard() {
  const preview = useStore((s) => s.changes?.discard);
  const acting = useStore((s) => s.changes?.acting);
  const ref = useShown<HTMLDivElement>(preview);
  if (!preview)
    return (
      <button type="button" class="danger-outline" data-testid="discard" onClick={() => void askDiscard()}>
        Discard uncommitted changes…
      </button>
    );
  const n = preview.files.length;
  if (!n)
    return (
      <div class="confirm" data-testid="discard-confirm">
        <p>There is nothing uncommitted to discard.</p>
        <button type="button" onClick={cancelDiscard}>
          Close
        </button>
      </div>
    );
  return (
    <div class="confirm" data-testid="discard-confirm" ref={ref}>
      <p>
        <strong>
          Discard {n} path{n === 1 ? '' : 's'}?
        </strong>{' '}
        This cannot be undone. Ignored files (a <code>.env</code>, <code>node_modules/</code>) go too.
      </p>
      <ul class="discard-files" data-testid="discard-files">
        {preview.files.map((f) => (
          <li key={f.path} data-state={f.state}>
            <Reveal text={f.path} /> <span class={`state ${f.state}`}>{f.state}</span>
          </li>
        ))}
      </ul>
      <div class="row">
        <button
          type="button"
          class="danger"
          data-testid="discard-yes"
          disabled={!!acting}
          onClick={() => void confirmDiscard()}
        >
          Discard {n}
        </button>
        <button type="button" data-testid="discard-no" onClick={cancelDiscard}>
          Keep them
        </button>
      </div>
    </div>
  );
}

export function ReviewActions({ body }: { body: ChangesBody }) {
  const acting = useStore((s) => s.changes?.acting);
  const pr = useStore((s) => s.changes?.pr);
  const proposal = useStore((s) => s.changes?.proposal);
  const replies = useStore((s) => s.conv?.replies ?? EMPTY);
  const [message, setMessage] = useState('');
  const proposed = useMemo(() => {
    if (!proposal) return undefined;
    const r = [...replies.values()].find((x) => x.kind === 'reply' && x.messageIds.includes(proposal));
    return r && proposalText(r.text);
  }, [proposal, replies]);

  const set = body.changes;
  const uncommitted = (['staged', 'unstaged', 'untracked'] as const).reduce(
    (n, s) => n + set.sections[s].files.length + set.sections[s].omitted,
    0,
  );
  const base = set.base?.name ?? 'the base';
  const ahead = set.base?.ahead ?? 0;
  const off = !!acting || body.busy || !!body.acting;

  if (body.readOnly)
    return (
      <section class="review-actions" data-testid="review-actions" data-read-only="yes">
        <p class="dim">
          This project has no worktrees, so its changes are shown read-only. Set its <code>worktrees</code> to true to
          commit, merge and discard from here.
        </p>
      </section>
    );
  return (
    <section class="review-actions" id="review-actions" data-testid="review-actions">
      <h2>Land it</h2>
      {body.busy && (
        <p class="note" data-testid="review-busy">
          A turn is running in this worktree: these wait until it ends (or stop it).
        </p>
      )}
      {body.acting && !acting && <p class="note">A {body.acting} is running on this worktree.</p>}
      <Outcome />
      {uncommitted > 0 && (
        <form
          class="commit"
          onSubmit={(e) => {
            e.preventDefault();
            if (message.trim()) void commit(message).then(() => setMessage(''));
          }}
        >
          <label for="commit-message">
            Commit the {uncommitted} uncommitted file{uncommitted === 1 ? '' : 's'}
          </label>
          <textarea
            id="commit-message"
            data-testid="commit-message"
            rows={3}
            placeholder="What the change does (first line), then why"
            value={message}
            onInput={(e) => setMessage((e.target as HTMLTextAreaElement).value)}
          />
          {proposed && (
            <div class="proposal" data-testid="commit-proposal">
              <pre>{proposed}</pre>
              <button type="button" data-testid="use-proposal" onClick={() => setMessage(proposed)}>
                Use it
              </button>
            </div>
          )}
          <div class="row">
            <button type="submit" class="primary" data-testid="commit" disabled={off || !message.trim()}>
              <Busy action="commit" acting={acting} label="Commit" />
            </button>
            <button type="button" data-testid="propose-commit" disabled={off} onClick={() => void proposeCommit()}>
              <Busy action="propose" acting={acting} label="Ask the agent to propose one" />
            </button>
          </div>
        </form>
      )}
      <div class="action">
        <p>
          {ahead > 0
            ? `Merge ${ahead} commit${ahead === 1 ? '' : 's'} into ${base}: a fast-forward when ${base} has ` +
              'not moved, else a merge commit.'
            : `${base} has everything committed on this branch: nothing to merge.`}
        </p>
        <div class="row">
          <button
            type="button"
            class="primary"
            data-testid="merge"
            disabled={off || ahead === 0}
            onClick={() => void merge()}
          >
            <Busy action="merge" acting={acting} label={`Merge into ${base}`} />
          </button>
          <button type="button" data-testid="push" disabled={off} onClick={() => void push('branch')}>
            <Busy action="push" acting={acting} label="Push branch" />
          </button>
          <button type="button" data-testid="push-base" disabled={off} onClick={() => void push('base')}>
            <Busy action="push-base" acting={acting} label={`Push ${base}`} />
          </button>
        </div>
      </div>
      <div class="action">
        {pr && !pr.available ? (
          <p class="dim" data-testid="pr-unavailable">
            {pr.message}
          </p>
        ) : (
          <button type="button" data-testid="pull-request" disabled={off} onClick={() => void openPullRequest()}>
            <Busy action="pull-request" acting={acting} label={`Open a pull request into ${base}`} />
          </button>
        )}
      </div>
      {uncommitted > 0 && (
        <div class="action">
          <Discard />
        </div>
      )}
    </section>
  );
}
