/**
 * What this device keeps so nothing written is lost: each conversation's draft, and the messages
 * not yet accepted by the gateway (sent again, with the same clientMessageId, once it is back; the
 * gateway drops a second copy of one it already has). localStorage: small, synchronous, survives a
 * reload and a closed tab.
 */

export interface OutboxItem {
  conversationId: string;
  /** The id the POST carries as clientMessageId; also the message's local id on the page. */
  clientMessageId: string;
  text: string;
  createdAt: number;
  /** The gateway refused it (a 4xx): shown with its reason, sent again only on Retry. */
  failed?: string;
}

const OUTBOX_KEY = 'rudder-outbox';
const DRAFT_KEY = 'rudder-draft:';

function storage(): Storage | undefined {
  try {
    return localStorage;
  } catch {
    return undefined;
  }
}

export function loadOutbox(): OutboxItem[] {
  try {
    const raw = JSON.parse(storage()?.getItem(OUTBOX_KEY) ?? '[]') as unknown;
    return Array.isArray(raw)
      ? raw.filter(
          (x): x is OutboxItem =>
            !!x && typeof x.conversationId === 'string' && typeof x.clientMessageId === 'string' && !!x.text,
        )
      : [];
  } catch {
    return [];
  }
}

function saveOutbox(items: OutboxItem[]): void {
  try {
    if (items.length) storage()?.setItem(OUTBOX_KEY, JSON.stringify(items));
    else storage()?.removeItem(OUTBOX_KEY);
  } catch {
    // Storage full or denied (private mode): the message still shows on the page until a reload.
  }
}

export function putOutbox(item: OutboxItem): void {
  const items = loadOutbox().filter((x) => x.clientMessageId !== item.clientMessageId);
  items.push(item);
  items.sort((a, b) => a.createdAt - b.createdAt);
  saveOutbox(items);
}

export function dropOutbox(clientMessageId: string): void {
  saveOutbox(loadOutbox().filter((x) => x.clientMessageId !== clientMessageId));
}

export function outboxOf(conversationId: string): OutboxItem[] {
  return loadOutbox().filter((x) => x.conversationId === conversationId);
}

export function loadDraft(conversationId: string): string {
  return storage()?.getItem(DRAFT_KEY + conversationId) ?? '';
}

export function saveDraft(conversationId: string, text: string): void {
  try {
    if (text) storage()?.setItem(DRAFT_KEY + conversationId, text);
    else storage()?.removeItem(DRAFT_KEY + conversationId);
  } catch {
    // As above: the draft lives on in the input until a reload.
  }
}

/** A message id that works without a secure context (crypto.randomUUID needs one; a phone on http:// has none). */
export function newClientMessageId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
