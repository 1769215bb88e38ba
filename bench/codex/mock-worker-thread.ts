/** Runs in the worker (mock-worker.ts): one mock model, answering "when did you first see this text?". */
import { parentPort, workerData } from 'node:worker_threads';
import { type LatencyProfile, startMockApi } from '../../tests/support/mock-anthropic.js';
import { startMockResponses } from '../../tests/support/mock-responses.js';

const { kind, latency } = workerData as { kind: 'responses' | 'anthropic'; latency: LatencyProfile | undefined };
const port = parentPort!;

const seen: (needle: string, timeoutMs: number) => Promise<number> = await (async () => {
  if (kind === 'responses') {
    const mock = await startMockResponses({ latency });
    port.postMessage({ type: 'ready', url: mock.url });
    return (needle, t) => mock.waitFor((r) => r.historyTexts.some((x) => x.includes(needle)), t).then((r) => r.at);
  }
  const mock = await startMockApi({ latency });
  port.postMessage({ type: 'ready', url: mock.url });
  return (needle, t) => mock.waitFor((r) => !r.side && r.historyText.includes(needle), t).then((r) => r.at);
})();

port.on('message', (m: { type: 'seen'; id: number; needle: string; timeoutMs: number }) => {
  seen(m.needle, m.timeoutMs).then(
    (at) => port.postMessage({ type: 'seen', id: m.id, at }),
    (err: Error) => port.postMessage({ type: 'seen', id: m.id, error: err.message }),
  );
});
