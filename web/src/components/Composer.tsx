/**
 * Writing to the agent: the input grows with its text; Enter sends on a keyboard (Shift+Enter for a
 * new line), the button on a phone. While a turn runs, a line above says what it is doing, with
 * Stop. A message sent meanwhile is steered into the turn or waits, as the gateway decides.
 */
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { duration } from '../format.js';
import { useNow } from '../hooks.js';
import { send, stop, useStore } from '../state.js';
import { currentStep, runningTurn } from '../timeline.js';
import './Composer.css';

const EMPTY = new Map();
const coarse = () => matchMedia('(pointer: coarse)').matches;

function RunningLine() {
  const turns = useStore((s) => s.conv?.turns ?? EMPTY);
  const running = useMemo(() => runningTurn(turns), [turns]);
  const now = useNow(!!running);
  const [stopping, setStopping] = useState(false);
  if (!running) return null;
  return (
    <div class="running-line" data-testid="running">
      <span class="pulse" aria-hidden="true" />
      <span class="what">
        {duration(now - running.startedAt)} · {currentStep(running)}
      </span>
      <button
        class="danger stop"
        data-testid="stop"
        disabled={stopping}
        onClick={() => {
          setStopping(true);
          void stop().finally(() => setStopping(false));
        }}
      >
        Stop
      </button>
    </div>
  );
}

export function Composer() {
  const id = useStore((s) => s.currentId);
  const ready = useStore((s) => s.connection !== 'unauthorized' && !!s.conv?.loaded);
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);

  useLayoutEffect(() => {
    const el = input.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, Math.round(innerHeight * 0.4))}px`;
  }, [text]);

  const submit = (e?: Event) => {
    e?.preventDefault();
    if (!text.trim() || !id) return;
    void send(text);
    setText('');
    input.current?.focus();
  };

  return (
    <div class="composer-wrap">
      <RunningLine />
      <form class="composer" onSubmit={submit}>
        <textarea
          ref={input}
          data-testid="input"
          aria-label="Message the agent"
          rows={1}
          placeholder="Message the agent"
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && !coarse()) submit(e);
          }}
        />
        <button
          class="primary send"
          data-testid="send"
          disabled={!ready || !text.trim()}
          aria-label="Send"
          title="Send"
        >
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
            <path
              d="M12 19V5M5 12l7-7 7 7"
              fill="none"
              stroke="currentColor"
              stroke-width="2.4"
              stroke-linecap="round"
              stroke-linejoin="round"
            />
          </svg>
        </button>
      </form>
    </div>
  );
}
