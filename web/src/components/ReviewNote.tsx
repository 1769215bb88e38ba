/** A review action in the timeline (committed, merged, pushed, ...): one line, its outcome marked, who asked. */
import type { ReviewRecordView } from '../types.js';
import './ReviewNote.css';

const ICON: Record<ReviewRecordView['action'], string> = {
  commit: '●',
  merge: '⑂',
  push: '↑',
  'pull-request': '⇄',
  discard: '✕',
};

export function ReviewNote({ review }: { review: ReviewRecordView }) {
  const by = review.by === 'web:owner' ? 'you, on the page' : review.by;
  return (
    <div
      class={`review-note${review.ok ? '' : ' failed'}`}
      data-testid="review-note"
      data-action={review.action}
      data-ok={review.ok ? 'yes' : 'no'}
    >
      <span class="icon" aria-hidden="true">
        {review.ok ? ICON[review.action] : '!'}
      </span>
      <span class="text">
        {review.summary}
        <span class="dim"> · {by}</span>
      </span>
    </div>
  );
}
