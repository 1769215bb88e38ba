/**
 * WAL checkpoints off the event loop. With automatic checkpoints, every ~1000 pages one commit
 * also copies the WAL into the database and fsyncs, on the gateway's own thread; here a worker
 * thread with its own connection runs a PASSIVE checkpoint every half second instead.
 */

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const WORKER =
  `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (err) { parentPort.postMessage({ error: String(err && ` +
  `err.message || err) }); }
}, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(TRUNCATE)'); } catch {}
  db.close();
  parentPort.postMessage({ stopped: true });
});
`;

export class Checkpointer {
  private readonly worker: Worker;

  constructor(file: string, everyMs = 500, onError: (message: string) => void = () => undefined) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER, { eval: true, workerData: { file, everyMs, driver } });
    this.worker.on('message', (m: { error?: string }) => m.error && onError(m.error));
    this.worker.on('error', (err) => onError(err.message));
    this.worker.unref();
  }

  /** A last full checkpoint, then the worker ends. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      this.worker.once('exit', done);
      this.worker.once(
        'message',
        (m: { stopped?: boolean }) => m.stopped && void this.worker.terminate().then(done, done),
      );
      this.worker.ref(); // keep the process alive until the last checkpoint is written
      this.worker.postMessage('stop');
      setTimeout(() => void this.worker.terminate().then(done, done), 3000).unref();
    });
  }
}
