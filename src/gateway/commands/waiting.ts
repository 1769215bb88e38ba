/**
 * What a person does with a button rather than a message (the web app): take back or change a
 * message that still waits in line. Each change to a waiting message
 * is decided synchronously (so the lane cannot start it in between), stored, and logged as a
 * `message` event so every open page shows it.
 */
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import type { MessageRow, MessageState } from '../../store/types.js';
import type { EventBus } from '../bus.js';
import type { Conversations } from '../conversations/conversations.js';

export type WaitingChange = { ok: true; row: MessageRow } | { ok: false; status: 404 | 409; reason: string };

const NOT_WAITING: Partial<Record<MessageState, string>> = {
  accepted: 'It is being routed right now; try again in a moment.',
  running: 'It is already running in the current turn.',
  steering: 'It was already handed to the running turn.',
  steered: 'It was already steered into a turn.',
  answered: 'It was already answered.',
  merged: 'It was already answered, merged with other messages.',
  stopped: 'It was stopped.',
  failed: 'It already failed.',
  refused: 'It was refused.',
  command: 'It is a command; commands run when they arrive.',
  withdrawn: 'It was already withdrawn.',
};

export interface WaitingDeps {
  store: Store;
  bus: EventBus;
  conversations: Conversations;
  log: Logger;
}

function waiting(d: WaitingDeps, conversationId: string, messageId: string): WaitingChange {
  const row = d.store.message(messageId);
  if (!row || row.conversationId !== conversationId)
    return { ok: false, status: 404, reason: 'No message with that id in this conversation.' };
  if (row.state !== 'queued' && row.state !== 'deferred')
    return { ok: false, status: 409, reason: NOT_WAITING[row.state] ?? `It is ${row.state}.` };
  return { ok: true, row };
}

/** Takes a waiting message back: it ends `withdrawn` and never reaches the agent. */
export function withdrawMessage(d: WaitingDeps, conversationId: string, messageId: string): WaitingChange {
  const check = waiting(d, conversationId, messageId);
  if (!check.ok) return check;
  const lane = d.conversations.lane(conversationId);
  if (lane.withdrawQueued(messageId) === 'pending')
    return { ok: false, status: 409, reason: 'It is being transcribed; it can be withdrawn once it waits in line.' };
  // A deferred message is not in the lane's queue: its state alone keeps it from running again.
  d.store.inbox.withdraw(messageId, 'withdrawn by the person');
  d.bus.emit(conversationId, 'message', messageId, { state: 'withdrawn' });
  d.log.info({ conversationId, messageId }, 'waiting message withdrawn');
  lane.pump();
  return { ok: true, row: { ...check.row, state: 'withdrawn', reason: 'withdrawn by the person' } };
}

/** Replaces the text of a waiting message; it keeps its place in line. */
export function editMessage(d: WaitingDeps, conversationId: string, messageId: string, text: string): WaitingChange {
  const check = waiting(d, conversationId, messageId);
  if (!check.ok) return check;
  if (check.row.state === 'queued' && !d.conversations.lane(conversationId).replaceQueued(messageId, text)) {
    return { ok: false, status: 409, reason: 'It is no longer waiting in line.' };
  }
  d.store.inbox.updateText(messageId, text);
  d.bus.emit(conversationId, 'message', messageId, { state: check.row.state, text, edited: true });
  return { ok: true, row: { ...check.row, text } };
}
