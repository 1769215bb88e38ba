/**
 * A consistent copy of the store while the gateway runs: SQLite's online backup API on a second
 * connection (a plain copy of rudder.db without its WAL misses the recent commits). The copy is
 * written as a 0600 file in a private directory made next to the target (mkdtemp: a fresh name,
 * mode 0700, so nothing planted there beforehand, a symlink say, is followed; the file itself is
 * opened O_EXCL|O_NOFOLLOW), checked (integrity_check), switched to a single file (journal_mode
 * DELETE), and only then renamed into place; the directory goes with whatever SQLite left in it.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { integrityCheck } from './db.js';

export interface BackupResult {
  file: string;
  bytes: number;
  messages: number;
  /** The newest message in the copy: its id and when it was received (epoch ms). */
  latest: { id: string; receivedAt: number } | null;
}

export class BackupError extends Error {
  override readonly name = 'BackupError';
}

export async function backupStore(
  source: string,
  target: string,
  opts: { overwrite?: boolean } = {},
): Promise<BackupResult> {
  const dest = path.resolve(target);
  if (!fs.existsSync(source))
    throw new BackupError(
      `There is no store at ${source}: nothing to back up. Is RUDDER_HOME set to the data dir Rudder runs with?`,
    );
  if (path.resolve(source) === dest) throw new BackupError('The backup file cannot be the store itself.');
  if (fs.existsSync(dest) && !opts.overwrite)
    throw new BackupError(`${dest} already exists. Choose another file, or pass --force to replace it.`);
  if (!fs.existsSync(path.dirname(dest))) throw new BackupError(`The directory ${path.dirname(dest)} does not exist.`);
  const dir = fs.mkdtempSync(path.join(path.dirname(dest), `.${path.basename(dest)}.partial-`));
  const partial = path.join(dir, 'copy.db');
  try {
    // Created empty with mode 0600 first: SQLite writes into it and keeps the mode (and gives its journals the same).
    const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = fs.constants;
    fs.closeSync(fs.openSync(partial, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o600));
    // Read-write only so that, with the gateway stopped, closing removes the -wal and -shm it opened; nothing is
    // written.
    const src = new Database(source, { fileMustExist: true });
    try {
      src.pragma('busy_timeout = 5000');
      // All pages in one step, inside one read transaction: a consistent snapshot, never restarted by the gateway's
      // writes.
      await src.backup(partial, { progress: () => 0x7fffffff });
    } finally {
      src.close();
    }
    const copy = new Database(partial, { fileMustExist: true });
    let result: Omit<BackupResult, 'file' | 'bytes'>;
    try {
      copy.pragma('journal_mode = DELETE');
      const integrity = integrityCheck(copy);
      if (integrity !== 'ok')
        throw new BackupError(
          `The copy failed its integrity check (${integrity}); the store itself may be damaged: run rudder doctor.`,
        );
      const messages = (copy.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n;
      const last = copy.prepare('SELECT id, received_at AS receivedAt FROM messages ORDER BY seq DESC LIMIT 1').get() as
        | { id: string; receivedAt: number }
        | undefined;
      result = { messages, latest: last ?? null };
    } finally {
      copy.close();
    }
    fs.renameSync(partial, dest);
    return { file: dest, bytes: fs.statSync(dest).size, ...result };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
