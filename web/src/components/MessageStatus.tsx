/**
 * A message's status under its bubble: the time, its emoji (👀 ➡️ ⏳ ⏹) and a word; a tap (or a
 * click) opens what happened to it, in order, so a phone without hover reads it too.
 */
import { useState } from 'preact/hooks';
import { useStore } from '../app-store.js';
import { clock } from '../format.js';
import { messageHistory, stateWord } from '../message-history.js';
import type { ChatMessage } from '../model.js';
import './MessageStatus.css';

const NONE = new Map();
/** States that are the usual course of things: the time and emoji say enough; a tap still tells the story. */
const QUIET = new Set(['answered', 'running', 'steered', 'command', 'accepted']);

function History({ m }: { m: ChatMessage }) {
  const turns = useStore((s) => s.conv?.turns ?? NONE);
  const replies = useStore((s) => s.conv?.replies ?? NONE);
  const lines = messageHistory(m, turns.values(), replies.values());
  return (
    <ol class="msg-history" data-testid="message-history">
      {lines.map((l) => (
        <li key={l.key} data-kind={l.key}>
          <span class="emoji" aria-hidden="true">
            {l.emoji}
          </span>
          <span class="what">{l.text}</span>
          {l.at !== undefined && <time class="at">{clock(l.at)}</time>}
        </li>
      ))}
    </ol>
  );
}

export function MessageStatus({ m }: { m: ChatMessage }) {
  const [open, setOpen] = useState(false);
  const emoji = m.acks.map((a) => a.emoji).join(' ');
  const word = stateWord(m);
  return (
    <div class="msg-status-wrap">
      {/* Named by what it shows (the time, the word); the word of the usual course is there for a screen reader. */}
      <button type="button" class="msg-status" data-testid="acks" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span class="when">{clock(m.receivedAt)}</span>
        {emoji && (
          <span class="emoji" aria-hidden="true">
            {emoji}
          </span>
        )}
        <span class={!QUIET.has(m.state) || m.unsent ? 'word' : 'word sr-only'}>{word}</span>
      </button>
      {open && <History m={m} />}
    </div>
  );
}
