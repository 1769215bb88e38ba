/**
 * A message this device writes, before and while the gateway takes it: shown at once under its
 * client id, marked while it waits (offline) or was refused, then given its real id. Pure
 * functions, like reduce.ts.
 */
import type { ChatMessage, Unsent } from './model.js';
import type { ConversationState } from './reduce.js';
import type { MessageState } from './types.js';

function change(c: ConversationState, id: string, f: (m: ChatMessage) => ChatMessage): ConversationState {
  const m = c.messages.get(id);
  if (!m) return c;
  const messages = new Map(c.messages);
  messages.set(id, f(m));
  return { ...c, messages };
}

/** A message this device wrote: shown at once under its client id, until the POST answers (or while it waits to). */
export function addLocal(
  c: ConversationState,
  localId: string,
  text: string,
  now: number,
  unsent?: { unsent: Unsent; reason: string },
): ConversationState {
  const messages = new Map(c.messages);
  messages.set(localId, {
    id: localId,
    text,
    state: unsent?.unsent === 'failed' ? 'failed' : 'sending',
    reason: unsent?.reason ?? null,
    receivedAt: now,
    acks: [],
    local: true,
    ...(unsent ? { unsent: unsent.unsent } : {}),
  });
  return { ...c, messages };
}

const DISPOSITION_STATE: Record<string, MessageState> = {
  turn: 'running',
  steered: 'steering',
  queued: 'queued',
  merged: 'queued',
  command: 'command',
  refused: 'refused',
};

/**
 * The POST answered: the local message takes its real id (events may already have told us about it). A `duplicate`
 * is one the gateway had already accepted (its answer was lost): it takes that id too, and the caller fetches its
 * state.
 */
export function confirmLocal(
  c: ConversationState,
  localId: string,
  messageId: string,
  disposition: string,
  reason?: string,
): ConversationState {
  const local = c.messages.get(localId);
  const messages = new Map(c.messages);
  messages.delete(localId);
  if (local) {
    const known = messages.get(messageId);
    const state =
      known && known.state !== 'accepted'
        ? known.state
        : disposition === 'duplicate'
          ? 'accepted'
          : (DISPOSITION_STATE[disposition] ?? 'accepted');
    messages.set(messageId, {
      ...local,
      ...known,
      id: messageId,
      text: known?.text ?? local.text,
      state,
      reason: reason ?? known?.reason ?? null,
      local: undefined,
      unsent: undefined,
      acks: known?.acks ?? [],
    });
  }
  return { ...c, messages };
}

/** The POST did not go through: it waits for the gateway (`offline`) or for the person (`failed`). */
export function failLocal(c: ConversationState, localId: string, unsent: Unsent, reason: string): ConversationState {
  return change(c, localId, (m) => ({ ...m, state: unsent === 'failed' ? 'failed' : 'sending', unsent, reason }));
}

/** Sent again (Retry, or the gateway came back). */
export function resendLocal(c: ConversationState, localId: string): ConversationState {
  return change(c, localId, (m) => ({ ...m, state: 'sending', unsent: undefined, reason: null }));
}

/** Deleted before it reached the gateway (Delete, or taken back into the input to edit). */
export function dropLocal(c: ConversationState, localId: string): ConversationState {
  if (!c.messages.has(localId)) return c;
  const messages = new Map(c.messages);
  messages.delete(localId);
  return { ...c, messages };
}
