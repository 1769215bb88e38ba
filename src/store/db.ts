/** Opening the SQLite store: WAL mode, migrations, and an integrity check for `rudder doctor`. */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { RudderError } from '../errors.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export interface OpenOptions {
  /**
   * In WAL mode, 'normal': a commit survives a crash or kill -9 of Rudder, but a power cut or an
   * OS crash can lose the last commits (the WAL is synced only at checkpoints). 'full': the WAL
   * is synced at every commit, so a commit survives a power cut too.
   */
  synchronous?: 'normal' | 'full';
}

export function openDatabase(file: string, opts: OpenOptions = {}): Db {
  try {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const db = new Database(file);
    // 0600 before the WAL exists: SQLite gives the -wal and -shm files the database file's mode.
    if (file !== ':memory:') fs.chmodSync(file, 0o600);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  } catch (err) {
    throw new RudderError('STORE_FAILED', `${file}: ${(err as Error).message}`, {}, err);
  }
}

function migrate(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

export function integrityCheck(db: Db): string {
  return String(db.pragma('integrity_check', { simple: true }));
}
