/**
 * Socket Mode receiver that acknowledges an event only after Rudder committed it. Bolt acks Events
 * API envelopes before running listeners; here that ack is held back until processEvent resolved
 * (the listener awaited sink.accept). If the commit failed, no ack is sent and Slack delivers the
 * envelope again.
 */
import { type App, type ReceiverEvent, SocketModeReceiver, type SocketModeReceiverOptions } from '@slack/bolt';
import type { Logger } from '../../ops/logger.js';

export class CommitFirstReceiver extends SocketModeReceiver {
  constructor(
    opts: SocketModeReceiverOptions,
    private readonly log: Logger,
  ) {
    super(opts);
  }

  override init(app: App): void {
    const holdAck = async (event: ReceiverEvent): Promise<void> => {
      let response: unknown;
      const held: ReceiverEvent = {
        ...event,
        ack: async (r?: unknown) => {
          response = r;
        },
      };
      try {
        await app.processEvent(held);
      } catch (err) {
        this.log.error(
          { err: err instanceof Error ? err.message : String(err) },
          'slack event not committed; leaving it unacknowledged so Slack redelivers it',
        );
        return;
      }
      await event.ack(response);
    };
    super.init({ processEvent: holdAck } as unknown as App);
  }
}
