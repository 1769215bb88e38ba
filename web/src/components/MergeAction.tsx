/**
 * Merging the branch into its base from the Changes view: a tap asks first, naming the base and
 * the commits. After a merge stopped on a conflict, and while the branch still lacks the base's
 * change, the primary action asks the agent to resolve it (one message through the normal door:
 * the files, and what the base changed in them) and the merge is the secondary one.
 */
import { useEffect, useRef } from 'preact/hooks';
import { askMerge, askToResolve, cancelMerge, merge } from '../review.js';
import { lastMerge, type Outcome as OutcomeState } from '../review-model.js';
import { useStore } from '../state.js';
import type { ChangesBody, ReviewRecordView } from '../types.js';
import { Busy, Outcome, useShown } from './Outcome.js';
import { Reveal } from './Revealed.js';

export interface Conflict {
  base: string;
  files: string[];
}

/**
 * The conflict the last merge stopped on (this page's outcome, or the conversation's history after a reload), while
 * the branch is still behind the base: once the agent merged the base in, merging is the next step again.
 */
export function openConflict(
  body: ChangesBody,
  outcome: OutcomeState | undefined,
  reviews: Map<number, ReviewRecordView>,
): Conflict | undefined {
  const base = body.changes.base;
  if (!base?.behind) return undefined;
  if (outcome?.action === 'merge' && !outcome.ok && outcome.files) return { base: base.name, files: outcome.files };
  const last = lastMerge(reviews);
  const r = last?.result;
  return last && !last.ok && r && 'kind' in r && r.kind === 'conflict' ? { base: r.base, files: r.files } : undefined;
}

const commits = (n: number) => `${n} commit${n === 1 ? '' : 's'}`;

function ConfirmMerge({ base, ahead, off }: { base: string; ahead: number; off: boolean }) {
  const ref = useShown<HTMLDivElement>(true);
  const yes = useRef<HTMLButtonElement>(null);
  // Asked from the keyboard: the button that asked is gone, the focus goes to the answer.
  useEffect(() => {
    if (document.activeElement === document.body) yes.current?.focus();
  }, []);
  return (
    <div class="confirm merge-confirm" data-testid="merge-confirm" ref={ref}>
      <p>
        <strong>
          Merge {commits(ahead)} into {base}?
        </strong>{' '}
        A fast-forward when {base} has not moved, else a merge commit, made in the project's checkout.
      </p>
      <div class="row">
        <button
          type="button"
          class="primary"
          data-testid="merge-yes"
          ref={yes}
          disabled={off}
          onClick={() => void merge()}
        >
          Merge {commits(ahead)}
        </button>
        <button type="button" data-testid="merge-no" onClick={cancelMerge}>
          Not now
        </button>
      </div>
    </div>
  );
}

/** What merging would do now, or why there is nothing to merge. */
function mergeText(base: string, ahead: number, uncommitted: boolean): string {
  if (ahead > 0)
    return `Merge ${commits(ahead)} into ${base}: a fast-forward when ${base} has not moved, else a merge commit.`;
  if (uncommitted) return `Nothing is committed on this branch yet: commit, then merge into ${base}.`;
  return `${base} has everything committed on this branch: nothing to merge.`;
}

export function MergeAction(props: {
  body: ChangesBody;
  off: boolean;
  conflict?: Conflict;
  primary: boolean;
  uncommitted: boolean;
}) {
  const { body, off, conflict, primary, uncommitted } = props;
  const acting = useStore((s) => s.changes?.acting);
  const confirm = useStore((s) => s.changes?.confirmMerge);
  const mergeOutcome = useStore((s) => s.changes?.outcome?.action === 'merge');
  const base = body.changes.base?.name ?? 'the base';
  const ahead = body.changes.base?.ahead ?? 0;
  return (
    <div class="action-block merge">
      {conflict && !mergeOutcome ? (
        <div class="conflict" data-testid="conflict">
          <p>
            The last merge into {conflict.base} stopped on a conflict in{' '}
            {conflict.files.length === 1 ? 'this file' : 'these files'}; nothing was changed:
          </p>
          <ul>
            {conflict.files.map((f) => (
              <li key={f}>
                <Reveal text={f} />
              </li>
            ))}
          </ul>
        </div>
      ) : (
        // The confirmation says it again in its question.
        !conflict && !confirm && <p>{mergeText(base, ahead, uncommitted)}</p>
      )}
      {/* What the merge came to (a conflict: why the agent is asked), above what can be done next. */}
      <Outcome actions={['merge', 'resolve']} />
      {confirm ? (
        <ConfirmMerge base={base} ahead={ahead} off={off} />
      ) : (
        <div class="row">
          {conflict && (
            <button
              type="button"
              class="primary"
              data-testid="ask-resolve"
              disabled={off}
              onClick={() => void askToResolve(conflict.files, conflict.base)}
            >
              <Busy action="resolve" acting={acting} label="Ask the agent to resolve it" />
            </button>
          )}
          <button
            type="button"
            class={primary && !conflict && ahead > 0 ? 'primary' : ''}
            data-testid="merge"
            disabled={off || ahead === 0}
            onClick={askMerge}
          >
            <Busy action="merge" acting={acting} label={`Merge into ${base}…`} />
          </button>
        </div>
      )}
    </div>
  );
}
