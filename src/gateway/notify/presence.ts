/**
 * Who is looking at which conversation: each open page says which conversation it shows while it
 * is visible, focused and in use, renews that every few seconds, and says when it stops. A report
 * is a lease: a page that vanished without a word (a phone that died, a killed tab) stops counting
 * when it runs out, so a stale report can hold a push back for a short while, never for good.
 * The notifier asks it before a push, and hears when a conversation is no longer looked at.
 */

/** How long one report counts; the page renews it well before (web/src/presence.ts). */
export const PRESENCE_LEASE_MS = 45_000;
/** Pages tracked at most (a viewer id is the page's own random id). */
const MAX_VIEWERS = 100;

type Listener = (conversationId: string) => void;

interface Lease {
  conversationId: string;
  timer: NodeJS.Timeout;
}

export class Presence {
  private readonly viewers = new Map<string, Lease>();
  private readonly listeners: Listener[] = [];

  constructor(private readonly leaseMs = PRESENCE_LEASE_MS) {}

  /** Told when a conversation stops being looked at by any page (a page looked away, or its lease ran out). */
  onAway(l: Listener): void {
    this.listeners.push(l);
  }

  /** A page looks at `conversationId` now, or at nothing (null: hidden, blurred, idle, closing). */
  report(viewer: string, conversationId: string | null): void {
    const before = this.viewers.get(viewer);
    if (before) clearTimeout(before.timer);
    this.viewers.delete(viewer);
    if (conversationId !== null) {
      if (this.viewers.size >= MAX_VIEWERS) this.expire(this.viewers.keys().next().value!);
      const timer = setTimeout(() => this.expire(viewer), this.leaseMs);
      timer.unref();
      this.viewers.set(viewer, { conversationId, timer });
    }
    if (before && before.conversationId !== conversationId) this.left(before.conversationId);
  }

  /** Some page shows this conversation, visible and focused, now. */
  watching(conversationId: string): boolean {
    for (const v of this.viewers.values()) if (v.conversationId === conversationId) return true;
    return false;
  }

  stop(): void {
    for (const v of this.viewers.values()) clearTimeout(v.timer);
    this.viewers.clear();
  }

  private expire(viewer: string): void {
    const lease = this.viewers.get(viewer);
    if (!lease) return;
    clearTimeout(lease.timer);
    this.viewers.delete(viewer);
    this.left(lease.conversationId);
  }

  private left(conversationId: string): void {
    if (this.watching(conversationId)) return;
    for (const l of this.listeners) l(conversationId);
  }
}
