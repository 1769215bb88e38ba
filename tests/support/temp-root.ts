/**
 * Global setup: the run's one temp root. Every worker, and every process a test starts with the
 * inherited environment, makes its temp files under it (TMPDIR); the root is removed when the run
 * ends, so a suite leaves nothing behind in the system's temp directory (an agent's home with its
 * unpacked binaries takes hundreds of MB per test).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function setup(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-run-'));
  process.env.TMPDIR = root;
  return () => fs.rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
