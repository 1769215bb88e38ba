/**
 * What the mock model servers (mock-anthropic.ts, mock-responses.ts, mock-plan.ts) share besides
 * their wire: the log of requests a test waits on, and a close that drops open streams.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

export interface RequestLog<R> {
  requests: R[];
  /** Logs a request and wakes the waits it matches. */
  add(r: R): void;
  /** The first logged request that matches, now or when it comes; fails after timeoutMs. */
  waitFor(pred: (r: R) => boolean, timeoutMs?: number): Promise<R>;
}

/** `who` names the mock in the timeout's error. */
export function requestLog<R>(who: string): RequestLog<R> {
  const requests: R[] = [];
  const waiters = new Set<{ pred: (r: R) => boolean; resolve: (r: R) => void }>();
  return {
    requests,
    add(r) {
      requests.push(r);
      for (const w of [...waiters]) if (w.pred(r)) waiters.delete(w), w.resolve(r);
    },
    waitFor(pred, timeoutMs = 30_000) {
      const found = requests.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (r: R) => (clearTimeout(t), resolve(r)) };
        const t = setTimeout(
          () => (waiters.delete(w), reject(new Error(`${who}: no matching request in time`))),
          timeoutMs,
        );
        waiters.add(w);
      });
    },
  };
}

/** Closes the server without waiting for open streams (a hung reply never ends by itself). */
export function closer(server: http.Server): () => Promise<void> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  return async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
}

/**
 * The default text answer of the scripted mocks (mock-plan.ts, mock-responses.ts): `[[reply:…]]`'s text, else
 * "ok" (or "done ok" after a tool) followed by the new texts' `tag:` marks; `[[slow:<ms>]]` makes it a longer
 * text streamed in 20 pieces over that many milliseconds.
 */
export function defaultAnswer(req: { lastUserText: string; userTexts: string[]; afterTool: boolean }): {
  text: string;
  slowMs?: number;
} {
  const t = req.lastUserText;
  const tags = [...new Set(req.userTexts.flatMap((u) => [...u.matchAll(/tag:([\w-]+)/g)].map((m) => `tag:${m[1]}`)))];
  const ok = `ok${tags.length ? ` ${tags.join(' ')}` : ''}`;
  const said = /\[\[reply:([^\]]*)\]\]/.exec(t);
  const text = said ? said[1]! : req.afterTool ? `done ${ok}` : ok;
  const slow = /\[\[slow:(\d+)\]\]/.exec(t);
  return slow ? { text: `${text} ${'streaming '.repeat(19)}end`, slowMs: Number(slow[1]) } : { text };
}
