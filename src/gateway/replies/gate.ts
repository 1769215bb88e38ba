/**
 * What a chat's next message waits for: the collapse of a progress card whose turn just ended, so
 * the reply never lands under a card that still says "Working". The progress driver holds the gate
 * of a conversation while a collapse is on its way (sent at once, outside the edit rhythm) and lets
 * go when the platform answered it or refused it; delivery waits for that, at most until the hold's
 * deadline. Meanwhile the reply stays owed in the outbox: a collapse that fails or hangs delays it
 * by its deadline at most, and never loses it.
 */

export interface GateHold {
  /** The collapse was answered, refused or given up on. */
  release(): void;
  /** Moves the deadline later (the chat's retry-after holds the collapse too). */
  extend(until: number): void;
}

interface Hold {
  until: number;
  done: Promise<void>;
  release(): void;
}

export class ReplyGate {
  private readonly holds = new Map<string, Set<Hold>>();

  /** Holds the conversation's next message until release(), or until `until` (epoch ms) at the latest. */
  hold(conversationId: string, until: number): GateHold {
    let resolve!: () => void;
    const h: Hold = { until, done: new Promise<void>((r) => (resolve = r)), release: () => undefined };
    const set = this.holds.get(conversationId) ?? new Set<Hold>();
    this.holds.set(conversationId, set);
    set.add(h);
    h.release = () => {
      set.delete(h);
      if (set.size === 0 && this.holds.get(conversationId) === set) this.holds.delete(conversationId);
      resolve();
    };
    return {
      release: () => h.release(),
      extend: (later) => {
        h.until = Math.max(h.until, later);
      },
    };
  }

  /** Resolves once no hold of the conversation is left, or each left has passed its deadline. */
  async passed(conversationId: string): Promise<void> {
    for (;;) {
      const open = [...(this.holds.get(conversationId) ?? [])].filter((h) => h.until > Date.now());
      const h = open[0];
      if (!h) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        h.done,
        new Promise<void>((r) => {
          timer = setTimeout(r, h.until - Date.now());
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    }
  }

  /** Lets every waiter go (the gateway stops). */
  releaseAll(): void {
    for (const set of [...this.holds.values()]) for (const h of [...set]) h.release();
  }
}
