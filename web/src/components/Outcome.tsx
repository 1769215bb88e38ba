/** What a Changes view action came to, shown by that action; a busy label; a part brought into view when it appears. */
import { useEffect, useRef } from 'preact/hooks';
import type { PageAction } from '../review.js';
import { useStore } from '../state.js';
import { Reveal } from './Revealed.js';

export function Busy({ action, acting, label }: { action: PageAction; acting?: PageAction; label: string }) {
  return <>{acting === action ? `${label}…` : label}</>;
}

/** Brought into view when it appears: the button that asked may be further down, on a phone. */
export function useShown<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (key) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [key]);
  return ref;
}

/** What the last action came to, shown by the action it belongs to (one of `actions`). */
export function Outcome({ actions }: { actions: PageAction[] }) {
  const outcome = useStore((s) => s.changes?.outcome);
  const mine = outcome && actions.includes(outcome.action) ? outcome : undefined;
  const ref = useShown<HTMLDivElement>(mine);
  if (!mine) return null;
  return (
    <div
      ref={ref}
      class={`review-outcome${mine.ok ? '' : ' failed'}`}
      role="status"
      data-testid="review-outcome"
      data-action={mine.action}
      data-ok={mine.ok ? 'yes' : 'no'}
    >
      <p>{mine.text}</p>
      {mine.files && (
        <ul data-testid="conflict-files">
          {mine.files.map((f) => (
            <li key={f}>
              <Reveal text={f} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
