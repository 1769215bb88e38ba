/** A recording InboundSink for channel tests: it commits nothing, it only remembers (and admits whom it is told to). */
import type { InboundMessage, InboundSink } from '../../src/channels/channel.js';

export interface RecordingSink extends InboundSink {
  messages: InboundMessage[];
  /** Makes the next n accept() calls throw, as a failing inbox commit would. */
  failNext(n: number): void;
  /** Makes admits() answer false for the messages the predicate matches (as access control would). */
  refuse(pred: (msg: InboundMessage) => boolean): void;
  /** Every admits() question, in order. */
  asked: InboundMessage[];
  waitForCount(n: number, timeoutMs?: number): Promise<InboundMessage[]>;
}

export function recordingSink(log?: string[]): RecordingSink {
  const messages: InboundMessage[] = [];
  let failures = 0;
  let refused: (msg: InboundMessage) => boolean = () => false;
  const waiters: Array<() => void> = [];
  const sink: RecordingSink = {
    messages,
    asked: [],
    failNext(n) {
      failures = n;
    },
    refuse(pred) {
      refused = pred;
    },
    admits(msg) {
      sink.asked.push(msg);
      return !refused(msg);
    },
    async accept(msg) {
      if (failures > 0) {
        failures--;
        log?.push(`accept-failed ${msg.platformMessageId}`);
        throw new Error('inbox commit failed (test)');
      }
      messages.push(msg);
      log?.push(`accepted ${msg.platformMessageId}`);
      for (const w of waiters.splice(0)) w();
      return { messageId: `m${messages.length}`, disposition: 'turn' };
    },
    waitForCount(n, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`waited too long for ${n} messages (have ${messages.length})`)), timeoutMs);
        const check = () => {
          if (messages.length >= n) {
            clearTimeout(timer);
            resolve(messages.slice());
          } else waiters.push(check);
        };
        check();
      });
    },
  };
  return sink;
}
