/**
 * Writing to the agent: the input grows with its text and is kept on the device as the
 * conversation's draft; Enter sends on a keyboard (Shift+Enter for a new line), the button on a
 * phone. While a turn runs, a line above says what it is doing, with Stop; while the gateway
 * cannot be reached, that its state is unknown. A message sent meanwhile waits on the device.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { focusMessageBox, handsFocusBack } from '../focus.js';
import { duration } from '../format.js';
import { useNow } from '../hooks.js';
import { send, setDraft, stop, useStore } from '../state.js';
import { currentStep, outOfTouch, runningTurn } from '../timeline.js';
import './Composer.css';
import { RecordButton } from './RecordButton.js';

const EMPTY = new Map();
const coarse = () => matchMedia('(pointer: coarse)').matches;

function RunningLine() {
  const turns = useStore((s) => s.conv?.turns ?? EMPTY);
  const running = useMemo(() => runningTurn(turns), [turns]);
  const unknown = useStore((s) => outOfTouch(s.connection));
  const streaming = useStore((s) => !!running && !!s.conv?.streaming.get(running.id));
  const now = useNow(!!running && !unknown);
  const [stopping, setStopping] = useState(false);
  /** Stop had the keyboard's focus: when it goes with the turn, the focus goes to the message box. */
  const refocus = useRef(false);
  useEffect(() => {
    if (running || !refocus.current) return;
    refocus.current = false;
    focusMessageBox();
  }, [running]);
  if (!running) return null;
  if (unknown)
    return (
      <div class="running-line unknown" data-testid="running" data-unknown="true">
        <span class="what">
          Cannot reach the gateway: whether the agent is still working is unknown until it is back.
        </span>
      </div>
    );
  return (
    <div class="running-line" data-testid="running">
      <span class="pulse" aria-hidden="true" />
      <span class="what">
        {duration(now - running.startedAt)} · {currentStep(running, streaming)}
      </span>
      <button
        type="button"
        class="danger stop"
        data-testid="stop"
        disabled={stopping}
        onClick={(e) => {
          refocus.current = handsFocusBack(e.currentTarget);
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
  // Written while the gateway is away, a message waits on the device: only a refused token stops the input.
  const ready = useStore((s) => s.connection !== 'unauthorized' && !!s.conv);
  const text = useStore((s) => s.draft);
  const focusSeq = useStore((s) => s.focusSeq);
  // With an empty input and speech-to-text on the gateway, the send button gives way to hold-to-record.
  const record = useStore((s) => s.speech.transcribe) && !text.trim();
  const input = useRef<HTMLTextAreaElement>(null);

  useLayoutEffect(() => {
    const el = input.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, Math.round(innerHeight * 0.4))}px`;
  }, [text]);

  // Text put back from elsewhere (Edit on an unsent message) is where the person types next.
  useEffect(() => {
    const el = input.current;
    if (!focusSeq || !el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, [focusSeq]);

  const submit = (e?: Event) => {
    e?.preventDefault();
    if (!text.trim() || !id || !ready) return;
    send(text);
    setDraft('');
    input.current?.focus();
  };

  return (
    <div class="composer-wrap">
      <RunningLine />
      <form class="composer" onSubmit={submit}>
        <textarea
          ref={input}
          id="message-input"
          data-testid="input"
          aria-label="Message the agent"
          rows={1}
          placeholder="Message the agent"
          value={text}
          onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && !coarse()) submit(e);
          }}
        />
        {record ? (
          <RecordButton disabled={!ready} />
        ) : (
          <button
            type="submit"
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
        )}
      </form>
    </div>
  );
}
