/**
 * A message the person sent: in the timeline with its status, or still waiting: in line (Edit,
 * Withdraw), or not yet accepted by the gateway (Retry, Edit, Delete).
 */
import { memo } from 'preact/compat';
import { useState } from 'preact/hooks';
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

export const MessageBubble = memo(function MessageBubble({ m }: { m: ChatMessage }) {
  const why = ENDED[m.state];
  return (
    <div class={`me ${m.state}`} data-testid="user-message" data-id={m.id} data-state={m.state}>
      <div class="bubble">
        <MessageText m={m} />
      </div>
      {why && (
        <div class="why">
          {why}
          {m.reason && m.state !== 'withdrawn' ? `: ${m.reason}` : ''}
        </div>
      )}
      <MessageStatus m={m} />
    </div>
  );
});

const WAITING_TEXT: Record<string, string> = {
  sending: 'Sending…',
  steering: '➡️ Handed to the running turn: the agent takes it in at its next step.',
  queued: '⏳ Waits for the running turn.',
  deferred: '⏳ Held; it runs later.',
};

function waitText(m: ChatMessage): string {
  if (m.unsent === 'offline') return `📴 ${m.reason ?? 'Not sent yet.'}`;
  if (m.unsent === 'failed') return `⚠️ Not sent: ${m.reason ?? 'the gateway refused it.'}`;
  const note = [...m.acks].reverse().find((a) => a.kind === 'queued')?.note ?? m.reason;
  if (note && (m.state === 'queued' || m.state === 'deferred')) return `⏳ ${note}`;
  return WAITING_TEXT[m.state] ?? m.state;
}

/** Retry, Edit (back into the input) and Delete for a message the gateway has not accepted. */
function UnsentActions({ m }: { m: ChatMessage }) {
  return (
    <span class="wait-actions">
      <button type="button" data-testid="retry" onClick={() => retry(m.id)}>
        Retry
      </button>
      <button type="button" data-testid="edit-unsent" onClick={() => editUnsent(m.id)}>
        Edit
      </button>
      <button type="button" data-testid="delete-unsent" onClick={() => discard(m.id)}>
        Delete
      </button>
    </span>
  );
}

export const QueuedMessage = memo(function QueuedMessage({ m }: { m: ChatMessage }) {
  const [draft, setDraft] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const canChange = (m.state === 'queued' || m.state === 'deferred') && !m.local;
  const save = async (e: Event) => {
    e.preventDefault();
    if (!draft?.trim()) return;
    setBusy(true);
    if (await edit(m.id, draft)) setDraft(undefined);
    setBusy(false);
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
            onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
          />
          <div class="row">
            <button type="button" onClick={() => setDraft(undefined)}>
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
              <button type="button" data-testid="edit" onClick={() => setDraft(m.text)}>
                Edit
              </button>
            )}
            <button
              type="button"
              data-testid="withdraw"
              disabled={busy}
              onClick={() => {
                setBusy(true);
                void withdraw(m.id).finally(() => setBusy(false));
              }}
            >
              Withdraw
            </button>
          </span>
        )}
      </div>
    </div>
  );
});
