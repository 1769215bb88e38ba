/**
 * Sends the parts of one reply in order and remembers, per outbox id, how many parts the platform
 * confirmed. When the gateway retries a reply that failed halfway, the parts already shown are
 * not sent again; a reply that was fully delivered is not sent twice.
 */
export class PartProgress {
  private done = new Map<string, number>();

  constructor(private readonly capacity = 1000) {}

  async deliver(
    outboxId: string,
    parts: string[],
    sendPart: (part: string, index: number) => Promise<void>,
  ): Promise<void> {
    for (let i = this.done.get(outboxId) ?? 0; i < parts.length; i++) {
      await sendPart(parts[i]!, i);
      this.mark(outboxId, i + 1);
    }
  }

  private mark(outboxId: string, count: number): void {
    this.done.delete(outboxId);
    this.done.set(outboxId, count);
    // Oldest entries go first; a Map iterates in insertion order.
    while (this.done.size > this.capacity) this.done.delete(this.done.keys().next().value as string);
  }
}
