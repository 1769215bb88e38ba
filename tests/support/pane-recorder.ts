/**
 * A tiny program to run in a tmux pane: it puts its tty in raw mode, optionally turns on bracketed
 * paste (as Claude Code does), and appends every byte it receives to a file, so a test sees
 * exactly what tmux delivered.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const RECORDER_SCRIPT = `
const fs = require('node:fs');
const [out, mode] = process.argv.slice(1);
if (mode !== 'plain') process.stdout.write('\\x1b[?2004h');
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => fs.appendFileSync(out, d));
process.stdout.write('RECORDER READY\\r\\n');
`;

export interface Recorder {
  file: string;
  argv: string[];
  read(): Buffer;
  /** Resolves once at least `bytes` have arrived (or rejects after timeoutMs). */
  waitForBytes(bytes: number, timeoutMs?: number): Promise<Buffer>;
  cleanup(): void;
}

export function makeRecorder(mode: 'bracketed' | 'plain' = 'bracketed'): Recorder {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-recorder-'));
  const file = path.join(dir, 'received.bin');
  fs.writeFileSync(file, '');
  const read = () => fs.readFileSync(file);
  return {
    file,
    argv: [process.execPath, '-e', RECORDER_SCRIPT, file, mode],
    read,
    async waitForBytes(bytes, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const got = read();
        if (got.length >= bytes) return got;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`recorder: ${read().length} of ${bytes} bytes arrived`);
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
