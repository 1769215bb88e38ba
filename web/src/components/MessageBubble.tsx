/** A message the person sent: in the timeline with its acks, or waiting in line (withdraw, edit). */
import { memo } from 'preact/compat';
import { useState } from 'preact/hooks';
import { edit, withdraw } from '../state.js';
import type { Ack, Message } from '../types.js';
import './MessageBubble.css';

export function Acks({ acks }: { acks: Ack[] }) {
  const note = acks
    .map((a) => a.note)
    .filter(Boolean)
    .join(' · ');
  return (
    <span class="acks" data-testid="acks" title={note || undefined}>
      {acks.map((a) => a.emoji).join(' ')}
    </span>
  );
}

const ENDED: Record<string, string> = {
  refused: 'Not passed on',
  failed: 'Failed',
  withdrawn: 'Withdrawn before it ran',
  stopped: 'Stopped',
};

export const MessageBubble = memo(function MessageBubble({ m }: { m: Message }) {
  const why = ENDED[m.state];
  return (
    <div class={`me ${m.state}`} data-testid="user-message" data-id={m.id} data-state={m.state}>
      <div class="bubble">
        <span class="text">{m.text}</span>
        <Acks acks={m.acks} />
      </div>
      {why && m.state !== 'stopped' && (
        <div class="why">
          {why}
          {m.reason && m.state !== 'withdrawn' ? `: ${m.reason}` : ''}
        </div>
      )}
    </div>
  );
});

const WAITING_TEXT: Record<string, string> = {
  sending: 'Sending…',
  steering: '➡️ Handed to the running turn: the agent takes it in at its next step.',
  queued: '⏳ Waits for the running turn.',
  deferred: '⏳ Held; it runs later.',
};

export const QueuedMessage = memo(function QueuedMessage({ m }: { m: Message }) {
  const [draft, setDraft] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const canChange = (m.state === 'queued' || m.state === 'deferred') && !m.local;
  const note = [...m.acks].reverse().find((a) => a.kind === 'queued')?.note ?? m.reason;
  const save = async (e: Event) => {
    e.preventDefault();
    if (!draft?.trim()) return;
    setBusy(true);
    if (await edit(m.id, draft)) setDraft(undefined);
    setBusy(false);
  };
  return (
    <div class={`me waiting ${m.state}`} data-testid="queued-message" data-id={m.id} data-state={m.state}>
      {draft === undefined ? (
        <div class="bubble">
          <span class="text">{m.text}</span>
          <Acks acks={m.acks} />
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
            <button class="primary" data-testid="edit-save" disabled={busy}>
              Save
            </button>
          </div>
        </form>
      )}
      <div class="wait-line">
        <span class="wait-text">
          {note && (m.state === 'queued' || m.state === 'deferred') ? `⏳ ${note}` : (WAITING_TEXT[m.state] ?? m.state)}
        </span>
        {canChange && draft === undefined && (
          <span class="wait-actions">
            <button data-testid="edit" onClick={() => setDraft(m.text)}>
              Edit
            </button>
            <button
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
