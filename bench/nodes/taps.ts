/** Taps on the NATS reader shared by the benchmark's front (cluster.ts) and its node child (node-child.ts). */
import type { JsMsg } from '@nats-io/jetstream';
import { DurableReader } from '../../src/nodes/transport/reader.js';

/** Calls `see` with each message a DurableReader of this process takes off its consumer (its private `take`). */
export function onReaderTake(see: (m: JsMsg) => void): void {
  type Take = (this: DurableReader, m: JsMsg) => void;
  const proto = DurableReader.prototype as unknown as { take: Take };
  const take = proto.take;
  proto.take = function (this: DurableReader, m: JsMsg) {
    see(m);
    take.call(this, m);
  };
}

/** When the server stored a JetStream message, epoch ms. */
export const storedAt = (m: JsMsg) => Number(m.info.timestampNanos) / 1e6;
