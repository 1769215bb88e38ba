/**
 * Runs tasks one after another per key (a conversation), so the parts of one reply, and replies
 * to the same chat, reach the platform in the order they were asked for. Different keys run
 * concurrently.
 */
export class KeyedSerial {
  private tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    // Forget the key once its queue drains, so idle chats hold no memory.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}

/** One queue: each task starts when the one before it settled, whether it succeeded or failed. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const done = this.tail.then(task);
    this.tail = done.catch(() => undefined);
    return done;
  }

  /** Resolves once the tasks queued so far have settled. */
  async idle(): Promise<void> {
    await this.tail;
  }
}
