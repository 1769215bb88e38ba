/** Load shapes driven through intake.accept(): closed loops per conversation, paced or flat out. */
import { performance } from 'node:perf_hooks';
import { sleep } from '../stats.js';
import { type FakeGateway, webMessage } from './fake-gateway.js';

export interface LoadResult {
  messages: number;
  elapsedMs: number;
  perSecond: number;
  /** Accept call to the fake agent's input, per message (ms). */
  acceptToInput: number[];
  dispositions: Record<string, number>;
  /** CPU time of this process (user + system, all threads) per message, in µs: the capacity a busy machine hides. */
  cpuUsPerMessage: number;
}

/**
 * `conversations` senders, each with one message in flight: send, wait for its reply, wait
 * `thinkMs` (0: none), send the next. Stops after `total` messages.
 */
export async function closedLoop(
  g: FakeGateway,
  conversations: number,
  total: number,
  opts: { thinkMs?: () => number; tag?: string } = {},
): Promise<LoadResult> {
  const intake = g.gw.services.intake;
  const acceptToInput: number[] = [];
  const dispositions: Record<string, number> = {};
  let next = 0;
  const worker = async (c: number) => {
    const key = `${opts.tag ?? 'load'}-${conversations}-${c}`;
    while (next < total) {
      const i = next++;
      const t0 = performance.now();
      const r = await intake.accept(webMessage(key, `message ${i}`));
      const at = g.inputs.get(r.messageId);
      if (at !== undefined) acceptToInput.push(at - t0);
      g.inputs.delete(r.messageId);
      dispositions[r.disposition] = (dispositions[r.disposition] ?? 0) + 1;
      await g.replied(r.messageId);
      const think = opts.thinkMs?.() ?? 0;
      if (think > 0) await sleep(think);
    }
  };
  const start = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: conversations }, (_, c) => worker(c)));
  const used = process.cpuUsage(cpu);
  const elapsedMs = performance.now() - start;
  return {
    messages: total,
    elapsedMs,
    perSecond: (total / elapsedMs) * 1000,
    acceptToInput,
    dispositions,
    cpuUsPerMessage: (used.user + used.system) / total,
  };
}
