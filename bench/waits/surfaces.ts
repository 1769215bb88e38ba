/**
 * Where a person sees Rudder work: the web page's event stream and each chat channel's platform
 * API (the fakes in tests/support, driven by the real channel libraries). A surface sends a
 * message as the person would and has probes, each one thing the person can see, in the order
 * they usually come: the acknowledgement, a sign of progress, the first text of the answer.
 * A new surface sign (a progress card's first post, say) is one more probe in a list.
 */
import type { Endpoint } from '../../src/cli/client.js';
import { call } from '../../src/cli/client.js';
import { now } from '../floor/wire-tap.js';
import { TimedEvents } from '../web-client.js';

export interface Sent {
  /** When the person sent it, on this surface's clock (ms). */
  at: number;
  /** The message on the platform: its id (or ts, or key). */
  ref: string;
}

export type ProbeKind = 'ack' | 'progress' | 'text';

export interface Probe {
  /** What the person sees, e.g. "👀 reaction (setMessageReaction)". */
  name: string;
  kind: ProbeKind;
  /** When it became visible for this message (the answer carries `done TAG`), on the surface's clock. */
  seen(sent: Sent, tag: string, timeoutMs: number): Promise<number>;
}

export interface Surface {
  name: string;
  send(text: string): Promise<Sent>;
  probes: Probe[];
  close?(): void;
}

/** Polls a list of timestamped calls until one matches (the fakes record every call as it arrives). */
export async function firstCall<C extends { at: number }>(
  calls: () => C[],
  pred: (c: C) => boolean,
  timeoutMs: number,
): Promise<number> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hit = calls().find(pred);
    if (hit) return hit.at;
    if (Date.now() > end) throw new Error('the surface showed nothing in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The web page: POST a message, read the conversation's event stream (times on the benchmark's fine clock). */
export async function webSurface(ep: Endpoint, conv: string): Promise<Surface> {
  const events = new TimedEvents(ep, conv);
  await events.ready;
  const on =
    (type: string, pred?: (d: Record<string, unknown>) => boolean) =>
    async (sent: Sent, _tag: string, timeoutMs: number) =>
      (await events.next(type, sent.ref, timeoutMs, pred)).at;
  const firstOf =
    (...probes: Array<(s: Sent, t: string, ms: number) => Promise<number>>) =>
    (s: Sent, t: string, ms: number) =>
      Promise.any(probes.map((p) => p(s, t, ms)));
  return {
    name: 'web',
    async send(text) {
      const at = now();
      const r = await call<{ messageId: string }>(
        ep,
        'POST',
        `/api/conversations/${encodeURIComponent(conv)}/messages`,
        { text },
      );
      return { at, ref: r.messageId };
    },
    probes: [
      { name: 'ack event (received)', kind: 'ack', seen: on('ack', (d) => d.kind === 'received') },
      { name: 'turn event (running)', kind: 'progress', seen: on('turn') },
      { name: 'first step or text event', kind: 'progress', seen: firstOf(on('step'), on('text')) },
      { name: 'first text event (streamed delta)', kind: 'text', seen: on('text') },
    ],
    close: () => events.close(),
  };
}
