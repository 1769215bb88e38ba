/**
 * A message the person sent: in the timeline with its status, or still waiting: in line (Edit,
 * Withdraw), or not yet accepted by the gateway (Retry, Edit, Delete). Each button names the
 * message it acts on; the keyboard's focus follows Edit into its box and back, and goes to the
 * message box when Withdraw takes the message out of line.
 */
import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { firstWords, focusMessageBox, handsFocusBack } from '../focus.js';
import { waitText } from '../message-history.js';
import type { ChatMessage } from '../model.js';
import { discard, edit, editUnsent, retry, withdraw } from '../state.js';
import './MessageBubble.css';
import { MessageStatus } from './MessageStatus.js';

const ENDED: Record<string, string> = {
  refused: 'Not passed on',
  failed: 'Failed',
  withdrawn: 'Withdrawn before it ran',
};

/** A message's text; a voice note says so, with its transcript once the gateway has one. */
function MessageText({ m }: { m: ChatMessage }) {
  if (!m.voice) return <span class="text">{m.text}</span>;
  const heard = m.voice.transcript;
  return (
    <span class="text voice" data-testid="voice-note">
      <svg class="mic" viewBox="0 0 24 24" width="14" height="14" role="img" aria-label="Voice note">
        <rect x="9" y="3" width="6" height="11" rx="3" fill="currentColor" />
        <path d="M6 11a6 6 0 0 0 12 0M12 17v4" fill="none" stroke="currentColor" stroke-width="2" />
      </svg>{' '}
      {heard !== undefined ? `“${heard}”` : 'Voice note · transcribing…'}
    </span>
  );
}

/** told: a notice in the timeline says why it ended, so the bubble says only how. */
export const MessageBubble = memo(function MessageBubble({ m, told = false }: { m: ChatMessage; told?: boolean }) {
  const why = ENDED[m.state];
  return (
    <div class={`me ${m.state}`} data-testid="user-message" data-id={m.id} data-state={m.state}>
      <div class="bubble">
        <MessageText m={m} />
      </div>
      {why && (
        <div class="why">
          {why}
          {m.reason && m.state !== 'withdrawn' && !told ? `: ${m.reason}` : ''}
        </div>
      )}
      <MessageStatus m={m} />
    </div>
  );
});

/** A button's name with the message it acts on ("Withdraw “fix the tests”"). */
const named = (action: string, m: ChatMessage) => `${action} “${firstWords(m.text)}”`;

/** Retry, Edit (back into the input) and Delete for a message the gateway has not accepted. */
function UnsentActions({ m }: { m: ChatMessage }) {
  return (
    <span class="wait-actions">
      <button type="button" data-testid="retry" aria-label={named('Retry', m)} onClick={() => retry(m.id)}>
        Retry
      </button>
      <button type="button" data-testid="edit-unsent" aria-label={named('Edit', m)} onClick={() => editUnsent(m.id)}>
        Edit
      </button>
      <button type="button" data-testid="delete-unsent" aria-label={named('Delete', m)} onClick={() => discard(m.id)}>
        Delete
      </button>
    </span>
  );
}

export const QueuedMessage = memo(function QueuedMessage({ m }: { m: ChatMessage }) {
  const [draft, setDraft] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  /** The edit box closed: the focus goes back to Edit. */
  const back = useRef(false);
  const canChange = (m.state === 'queued' || m.state === 'deferred') && !m.local;
  const editing = draft !== undefined;
  // Edit opens its box with the focus in it; closing it gives the focus back to Edit.
  useEffect(() => {
    if (editing) box.current?.focus();
    else if (back.current) editButton.current?.focus();
    back.current = false;
  }, [editing]);
  const close = () => {
    back.current = true;
    setDraft(undefined);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    if (!draft?.trim()) return;
    setBusy(true);
    if (await edit(m.id, draft)) close();
    setBusy(false);
  };
  const takeBack = (e: Event) => {
    const refocus = handsFocusBack(e.currentTarget as Element);
    setBusy(true);
    void withdraw(m.id).finally(() => {
      setBusy(false);
      if (refocus) focusMessageBox();
    });
  };
  return (
    <div
      class={`me waiting ${m.state}${m.unsent ? ` unsent ${m.unsent}` : ''}`}
      data-testid="queued-message"
      data-id={m.id}
      data-state={m.state}
      data-unsent={m.unsent}
    >
      {draft === undefined ? (
        <div class="bubble">
          <MessageText m={m} />
        </div>
      ) : (
        <form class="edit" onSubmit={save}>
          <textarea
            data-testid="edit-input"
            aria-label="Edit the waiting message"
            value={draft}
            rows={Math.min(8, draft.split('\n').length + 1)}
            ref={box}
            onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key !== 'Escape') return;
              e.stopPropagation();
              close();
            }}
          />
          <div class="row">
            <button type="button" onClick={close}>
              Cancel
            </button>
            <button type="submit" class="primary" data-testid="edit-save" disabled={busy}>
              Save
            </button>
          </div>
        </form>
      )}
      {!m.local && <MessageStatus m={m} />}
      <div class="wait-line">
        <span class="wait-text" data-testid="wait-text">
          {waitText(m)}
        </span>
        {m.unsent && <UnsentActions m={m} />}
        {canChange && draft === undefined && (
          <span class="wait-actions">
            {!m.voice && (
              <button
                type="button"
                data-testid="edit"
                ref={editButton}
                aria-label={named('Edit', m)}
                onClick={() => setDraft(m.text)}
              >
                Edit
              </button>
            )}
            <button
              type="button"
              data-testid="withdraw"
              aria-label={named('Withdraw', m)}
              disabled={busy}
              onClick={takeBack}
            >
              Withdraw
            </button>
          </span>
        )}
      </div>
    </div>
  );
});
