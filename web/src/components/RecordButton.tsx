/**
 * Hold to record a voice note (the composer shows it while the input is empty): press and hold,
 * let go to send, slide away (or Escape) to throw it away. A keyboard holds Space or Enter. The
 * recording goes to the gateway and through the same speech-to-text as a chat's voice note.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useNow } from '../hooks.js';
import { Recording } from '../recorder.js';
import { sendVoice, toast } from '../state.js';
import './RecordButton.css';

/** Shorter than this is a tap, not a voice note: the person is told to hold. */
const MIN_MS = 400;
/** Sliding this far from the button throws the recording away. */
const CANCEL_PX = 80;

type Phase = { kind: 'idle' } | { kind: 'starting' } | { kind: 'recording'; rec: Recording; away: boolean };

export function RecordButton({ disabled }: { disabled: boolean }) {
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const phaseRef = useRef(phase);
  phaseRef.current = phase;
  const origin = useRef({ x: 0, y: 0 });
  const released = useRef(false);
  const now = useNow(phase.kind === 'recording', 250);

  // A recording left running when the view goes away is thrown away.
  useEffect(() => () => void (phaseRef.current.kind === 'recording' && phaseRef.current.rec.cancel()), []);

  const begin = async () => {
    if (phaseRef.current.kind !== 'idle') return;
    released.current = false;
    setPhase({ kind: 'starting' });
    try {
      const rec = await Recording.start();
      if (released.current) {
        rec.cancel();
        setPhase({ kind: 'idle' });
        toast('Hold the microphone button while you speak, then let go to send.');
        return;
      }
      setPhase({ kind: 'recording', rec, away: false });
    } catch (err) {
      setPhase({ kind: 'idle' });
      toast(`Cannot record: ${(err as Error).message}`);
    }
  };

  const finish = async (send: boolean) => {
    released.current = true;
    const p = phaseRef.current;
    if (p.kind !== 'recording') return;
    setPhase({ kind: 'idle' });
    if (!send || p.away) return p.rec.cancel();
    if (Date.now() - p.rec.startedAt < MIN_MS) {
      p.rec.cancel();
      toast('Hold the microphone button while you speak, then let go to send.');
      return;
    }
    const audio = await p.rec.stop();
    await sendVoice(audio);
  };

  const recording = phase.kind === 'recording' ? phase : undefined;
  return (
    <>
      {recording && (
        <div class={`recording-line${recording.away ? ' away' : ''}`} data-testid="recording" role="status">
          <span class="dot" aria-hidden="true" />
          <span class="time">{clock(now - recording.rec.startedAt)}</span>
          <span class="hint">
            {recording.away ? 'Let go to throw it away' : 'Let go to send · slide away to cancel'}
          </span>
        </div>
      )}
      <button
        type="button"
        class={`record${recording ? ' on' : ''}`}
        data-testid="record"
        aria-label="Hold to record a voice note"
        title="Hold to record a voice note"
        aria-pressed={!!recording}
        disabled={disabled}
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          e.preventDefault();
          (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
          origin.current = { x: e.clientX, y: e.clientY };
          void begin();
        }}
        onPointerMove={(e) => {
          const p = phaseRef.current;
          if (p.kind !== 'recording') return;
          const away = Math.hypot(e.clientX - origin.current.x, e.clientY - origin.current.y) > CANCEL_PX;
          if (away !== p.away) setPhase({ ...p, away });
        }}
        onPointerUp={() => void finish(true)}
        onPointerCancel={() => void finish(false)}
        onKeyDown={(e) => {
          if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) {
            e.preventDefault();
            void begin();
          } else if (e.key === 'Escape') void finish(false);
        }}
        onKeyUp={(e) => {
          if (e.key === ' ' || e.key === 'Enter') void finish(true);
        }}
        onContextMenu={(e) => e.preventDefault()}
      >
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
          <rect x="9" y="3" width="6" height="11" rx="3" fill="currentColor" />
          <path
            d="M6 11a6 6 0 0 0 12 0M12 17v4"
            fill="none"
            stroke="currentColor"
            stroke-width="2"
            stroke-linecap="round"
          />
        </svg>
      </button>
    </>
  );
}

function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
