/**
 * `rudder backup <file>`: a consistent copy of the store (rudder.db with what its WAL holds), safe while the gateway
 * runs.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { dataDir } from '../config/load.js';

export function register(program: Command): void {
  program
    .command('backup')
    .description("copy the store to <file> with SQLite's online backup API; safe while the gateway runs")
    .argument('<file>', 'where the copy goes (mode 0600); its directory must exist')
    .option('--force', 'replace <file> if it exists')
    .addHelpText(
      'after',
      `
The copy holds every committed message, also those still in the WAL (a plain copy of rudder.db
without rudder.db-wal loses them), and is checked with integrity_check before it is put in place.
To restore: stop Rudder, move rudder.db, rudder.db-wal and rudder.db-shm out of the data dir,
copy the backup to <data dir>/rudder.db, start Rudder.`,
    )
    .action(async (file: string, opts: { force?: boolean }) => {
      process.exitCode = await backup(file, opts);
    });
}

export async function backup(file: string, opts: { force?: boolean }): Promise<number> {
  const { BackupError, backupStore } = await import('../store/backup.js');
  const source = path.join(dataDir(), 'rudder.db');
  try {
    const r = await backupStore(source, file, { overwrite: opts.force });
    const latest = r.latest
      ? `; the newest message ${r.latest.id} was received ${new Date(r.latest.receivedAt).toISOString()}`
      : '';
    process.stdout.write(
      `Backed up ${source} to ${r.file} (${Math.ceil(r.bytes / 1024)} KB, ${r.messages} messages${latest}).\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof BackupError)) throw err;
    process.stderr.write(`rudder backup: ${err.message}\n`);
    return 1;
  }
}
