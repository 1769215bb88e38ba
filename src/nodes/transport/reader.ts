/**
 * Reading a durable consumer: messages are handed to `handle` one at a time, in order; `handle`
 * does its work synchronously and returns when that is committed (a promise), and only then is
 * the message acknowledged. A crash before the commit leaves it unacknowledged, so JetStream
 * hands it out again after ack_wait (the receiver drops what it had already done). The loop
 * survives a restart of the server and a consumer that does not exist yet (a node started
 * before the front made it): it tries again.
 */
import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../../ops/logger.js';

export type Handler = (msg: JsMsg) => Promise<void> | undefined;

export class DurableReader {
  private messages: ConsumerMessages | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly o: { js: JetStreamClient; stream: string; consumer: string; log: Logger; handle: Handler },
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  private async run(): Promise<void> {
    let wait = 100;
    while (!this.stopped) {
      try {
        const c = await this.o.js.consumers.get(this.o.stream, this.o.consumer);
        this.messages = await c.consume({ max_messages: 256 });
        wait = 100;
        for await (const m of this.messages) {
          if (this.stopped) break;
          this.take(m);
        }
      } catch (err) {
        if (this.stopped) break;
        this.o.log.debug({ err: (err as Error).message, consumer: this.o.consumer }, 'consumer not readable yet');
      }
      if (this.stopped) break;
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 2000);
    }
  }

  private take(m: JsMsg): void {
    let committed: Promise<void> | undefined;
    try {
      committed = this.o.handle(m);
    } catch (err) {
      // A message this side cannot handle now is handed out again later; one it cannot read was acked by handle.
      this.o.log.error({ err, subject: m.subject, seq: m.seq }, 'handling a NATS message failed; it is redelivered');
      m.nak(1000);
      return;
    }
    if (!committed) return void m.ack();
    committed.then(
      () => m.ack(),
      (err: Error) => {
        this.o.log.error({ err: err.message, subject: m.subject }, 'committing a NATS message failed; redelivered');
        m.nak(1000);
      },
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    await this.loop?.catch(() => undefined);
  }
}
