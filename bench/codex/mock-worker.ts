/**
 * The mock models in a worker thread of their own, so the time they see a request is not held up
 * by the gateways and the floor client, which run on this process's event loop (a real model is
 * far away: a busy gateway never delays its clock). The benchmark asks the worker when the model
 * first got a request holding some text; everything else is the mock's own (its directives, its
 * latency profile).
 */
import { Worker } from 'node:worker_threads';
import type { LatencyProfile } from '../../tests/support/mock-anthropic.js';

export type MockKind = 'responses' | 'anthropic';

export interface RemoteMock {
  url: string;
  /** When the model first got a request that holds the needle (epoch ms, the worker's clock). */
  seen(needle: string, timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

type Reply = { type: 'ready'; url: string } | { type: 'seen'; id: number; at?: number; error?: string };

export async function mockInWorker(kind: MockKind, latency: LatencyProfile | undefined): Promise<RemoteMock> {
  const file = new URL('./mock-worker-thread.ts', import.meta.url).href;
  // The worker loads TypeScript the way this process does (tsx), then the thread's module.
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(file)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { kind, latency } });
  const waiting = new Map<number, { resolve: (at: number) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: Reply) => {
      if (m.type === 'ready') return resolve(m.url);
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.at !== undefined) w?.resolve(m.at);
      else w?.reject(new Error(m.error ?? 'the mock did not answer'));
    });
  });
  return {
    url,
    seen(needle, timeoutMs = 180_000) {
      const id = nextId++;
      worker.postMessage({ type: 'seen', id, needle, timeoutMs });
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    },
    async close() {
      await worker.terminate();
    },
  };
}
