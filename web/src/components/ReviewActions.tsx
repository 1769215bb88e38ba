/**
 * What can be done with the conversation's work, below its changes, as a phone app lays it out: one
 * primary action (commit what is not committed; after a merge's conflict, ask the agent to resolve
 * it; else merge), the others beside it or in a row. Commit with a message the person writes (kept
 * when the commit is refused) or one the agent proposes; merge into the base after a confirmation
 * that names the base and the commits (MergeAction.tsx); push and open a pull request, greyed out
 * with the reason when they cannot run; discard after a confirmation that names every path. What
 * an action came to shows by that action, until new changes come.
 */
import { useMemo, useState } from 'preact/hooks';
import { askDiscard, cancelDiscard, commit, confirmDiscard, openPullRequest, proposeCommit, push } from '../review.js';
import { uncommittedFiles } from '../review-model.js';
import { useStore } from '../state.js';
import type { ChangesBody } from '../types.js';
import { MergeAction, openConflict } from './MergeAction.js';
import { Busy, Outcome, useShown } from './Outcome.js';
import { Reveal } from './Revealed.js';
import './ReviewActions.css';

const EMPTY = new Map();

/** The agent's proposal, from its reply: the first fenced block, else the whole text. */
function proposalText(reply: string): string {
  const fenced = /```[a-z]*\n([\s\S]*?)```/.exec(reply);
  return (fenced ? fenced[1]! : reply).trim();
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

/** The commit box: what the person writes stays until a commit takes it. */
function CommitForm({ files, off, primary }: { files: number; off: boolean; primary: boolean }) {
  const acting = useStore((s) => s.changes?.acting);
  const proposal = useStore((s) => s.changes?.proposal);
  const replies = useStore((s) => s.conv?.replies ?? EMPTY);
  const [message, setMessage] = useState('');
  const proposed = useMemo(() => {
    if (!proposal) return undefined;
    const r = [...replies.values()].find((x) => x.kind === 'reply' && x.messageIds.includes(proposal));
    return r && proposalText(r.text);
  }, [proposal, replies]);
  return (
    <form
      class="commit action-block"
      onSubmit={(e) => {
        e.preventDefault();
        if (message.trim()) void commit(message).then((done) => done && setMessage(''));
      }}
    >
      <label for="commit-message">
        Commit the {files} uncommitted file{files === 1 ? '' : 's'}
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
        <button type="submit" class={primary ? 'primary' : ''} data-testid="commit" disabled={off || !message.trim()}>
          <Busy action="commit" acting={acting} label="Commit" />
        </button>
        <button type="button" data-testid="propose-commit" disabled={off} onClick={() => void proposeCommit()}>
          <Busy action="propose" acting={acting} label="Ask the agent to propose one" />
        </button>
      </div>
      <Outcome actions={['commit', 'propose']} />
    </form>
  );
}

/** Push the branch or the base, open a pull request: one row, each greyed out with its reason when it cannot run. */
function Share({ body, off }: { body: ChangesBody; off: boolean }) {
  const acting = useStore((s) => s.changes?.acting);
  const pr = useStore((s) => s.changes?.pr);
  const base = body.changes.base?.name ?? 'the base';
  const noRemote = 'unavailable' in body.push ? body.push.unavailable : undefined;
  const noPr = pr && !pr.available ? pr.message : undefined;
  return (
    <div class="action-block">
      <div class="row share">
        <button type="button" data-testid="push" disabled={off || !!noRemote} onClick={() => void push('branch')}>
          <Busy action="push" acting={acting} label="Push branch" />
        </button>
        <button type="button" data-testid="push-base" disabled={off || !!noRemote} onClick={() => void push('base')}>
          <Busy action="push-base" acting={acting} label={`Push ${base}`} />
        </button>
        <button
          type="button"
          data-testid="pull-request"
          disabled={off || !!noPr}
          title={noPr}
          onClick={() => void openPullRequest()}
        >
          <Busy action="pull-request" acting={acting} label="Pull request" />
        </button>
      </div>
      {noRemote && (
        <p class="why-not" data-testid="push-unavailable">
          Push: {noRemote}
        </p>
      )}
      {noPr && (
        <p class="why-not" data-testid="pr-unavailable">
          Pull request: {noPr}
        </p>
      )}
      <Outcome actions={['push', 'push-base', 'pull-request']} />
    </div>
  );
}

export function ReviewActions({ body }: { body: ChangesBody }) {
  const acting = useStore((s) => s.changes?.acting);
  const outcome = useStore((s) => s.changes?.outcome);
  const reviews = useStore((s) => s.conv?.reviews ?? EMPTY);
  const open = uncommittedFiles(body);
  const off = !!acting || body.busy || !!body.acting;
  const conflict = openConflict(body, outcome, reviews);

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
      {/* Once nothing is left uncommitted the commit box and Discard go: what they came to shows here. */}
      <Outcome actions={open > 0 ? ['comments'] : ['comments', 'commit', 'propose', 'discard']} />
      {open > 0 && <CommitForm files={open} off={off} primary={!conflict} />}
      <MergeAction
        body={body}
        off={off}
        conflict={conflict}
        primary={!!conflict || open === 0}
        uncommitted={open > 0}
      />
      <Share body={body} off={off} />
      {open > 0 && (
        <div class="action-block">
          <Discard />
          <Outcome actions={['discard']} />
        </div>
      )}
    </section>
  );
}
