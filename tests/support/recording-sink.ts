/** A recording InboundSink for channel tests: it commits nothing, it only remembers (and admits whom it is told to). */
import type { InboundMessage, InboundPress, InboundSink, PressResult } from '../../src/channels/channel.js';

export interface RecordingSink extends InboundSink {
  messages: InboundMessage[];
  presses: InboundPress[];
  /** What press() answers (default: ok, "done"). */
  answerPress(fn: (p: InboundPress) => PressResult | Promise<PressResult>): void;
  waitForPresses(n: number, timeoutMs?: number): Promise<InboundPress[]>;
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
  const presses: InboundPress[] = [];
  let answer: (p: InboundPress) => PressResult | Promise<PressResult> = () => ({ ok: true, text: 'done' });
  let failures = 0;
  let refused: (msg: InboundMessage) => boolean = () => false;
  const waiters: Array<() => void> = [];
  const waitFor = <T>(what: string, items: T[], n: number, timeoutMs: number): Promise<T[]> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`waited too long for ${n} ${what} (have ${items.length})`)),
        timeoutMs,
      );
      const check = () => {
        if (items.length >= n) {
          clearTimeout(timer);
          resolve(items.slice());
        } else waiters.push(check);
      };
      check();
    });
  const sink: RecordingSink = {
    messages,
    asked: [],
    presses,
    answerPress(fn) {
      answer = fn;
    },
    async press(p) {
      presses.push(p);
      log?.push(`pressed ${p.data}`);
      for (const w of waiters.splice(0)) w();
      return answer(p);
    },
    waitForPresses(n, timeoutMs = 10_000) {
      return waitFor('presses', presses, n, timeoutMs);
    },
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
      return waitFor('messages', messages, n, timeoutMs);
    },
  };
  return sink;
}
