/** ▶ on a reply: the gateway reads it aloud (tts.command) and the page plays it; ❚❚ pauses. */
import { togglePlay, usePlayback } from '../playback.js';
import { useStore } from '../state.js';
import './PlayButton.css';

const LABEL = { loading: 'Loading the spoken reply', playing: 'Pause', paused: 'Play the reply aloud' } as const;

export function PlayButton({ replyId }: { replyId: string }) {
  const conv = useStore((s) => s.currentId);
  const state = usePlayback(replyId);
  const label = state ? LABEL[state] : 'Play the reply aloud';
  return (
    <button
      type="button"
      class={`play${state ? ` ${state}` : ''}`}
      data-testid="play"
      data-state={state ?? 'idle'}
      aria-label={label}
      title={label}
      disabled={!conv}
      onClick={() => conv && void togglePlay(conv, replyId)}
    >
      <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
        {state === 'playing' ? (
          <path d="M7 5h3.5v14H7zM13.5 5H17v14h-3.5z" fill="currentColor" />
        ) : (
          <path d="M8 5.5v13l10.5-6.5z" fill="currentColor" />
        )}
      </svg>
      <span>{state === 'loading' ? 'Loading…' : state === 'playing' ? 'Pause' : 'Listen'}</span>
    </button>
  );
}
