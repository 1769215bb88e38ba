/** `rudder backup <file>` against a running gateway: SQLite's online backup on a second connection. */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupStore } from '../../../src/store/backup.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startChild } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startChild>>;

beforeAll(async () => {
  mock = await startMockApi();
  gw = await startChild({ agent: agentConfig(mock.url, tempDir('chome')) });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

const backup = (args: string[], home = gw.home) =>
  runCli(['backup', ...args], { cwd: gw.cwd, env: cleanEnv({ RUDDER_HOME: home }) });

describe('rudder backup', () => {
  it(
    'copies the store of a running gateway: 0600, intact, with the latest committed message and its ' + 'reply',
    async () => {
      const w = gw.watch('bk');
      await w.ready;
      const first = await gw.post('bk', 'first tag:bk1');
      await w.waitReply(first.messageId);
      const last = await gw.post('bk', 'latest tag:bk2');
      await w.waitReply(last.messageId);
      const file = path.join(tempDir('bkout'), 'rudder-backup.db');
      const r = await backup([file]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(
          `^Backed up .*rudder\\.db to ${file} \\(\\d+ KB, 2 messages; the newest ` +
            `message ${last.messageId} was received `,
        ),
      );
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      // One self-contained file: no WAL or journal beside it.
      expect(fs.readdirSync(path.dirname(file))).toEqual(['rudder-backup.db']);
      const db = new Database(file, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.prepare('SELECT state FROM messages WHERE id = ?').get(last.messageId)).toEqual({
          state: 'answered',
        });
        const reply = db
          .prepare("SELECT text FROM outbox WHERE message_ids LIKE ? AND kind = 'reply'")
          .get(`%${last.messageId}%`) as { text: string } | undefined;
        expect(reply?.text).toBe('ok tag:bk2');
      } finally {
        db.close();
      }
      // The gateway kept running through it.
      const after = await gw.post('bk', 'after tag:bk3');
      expect((await w.waitReply(after.messageId)).data.text).toBe('ok tag:bk3');
    },
  );

  it('does not follow a symlink planted where the copy is written, and leaves no temporary file', async () => {
    const out = tempDir('bkshared');
    const file = path.join(out, 'rudder-backup.db');
    // Someone who can write the directory points the old temporary name at a file of the person's.
    const victim = path.join(tempDir('bkvictim'), 'notes.txt');
    fs.writeFileSync(victim, 'my notes\n', { mode: 0o644 });
    const planted = `${file}.partial-${process.pid}`;
    fs.symlinkSync(victim, planted);
    const r = await backupStore(path.join(gw.home, 'rudder.db'), file);
    expect(r.messages).toBeGreaterThan(0);
    expect(fs.readFileSync(victim, 'utf8')).toBe('my notes\n');
    expect(fs.statSync(victim).mode & 0o777).toBe(0o644);
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');
    expect(fs.readlinkSync(planted)).toBe(victim);
    // Nothing else is left beside it: the private directory went with SQLite's journal.
    expect(fs.readdirSync(out).sort()).toEqual([path.basename(planted), 'rudder-backup.db'].sort());
  });

  it('does not replace a file unless --force, and says where no store is', async () => {
    const file = path.join(tempDir('bkout'), 'exists.db');
    fs.writeFileSync(file, 'keep me');
    const refused = await backup([file]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/exists\.db already exists\. Choose another file, or pass --force/);
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
    const forced = await backup([file, '--force']);
    expect(forced.status).toBe(0);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const none = await backup([path.join(tempDir('bkout'), 'x.db')], tempDir('empty-home'));
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/There is no store at .*rudder\.db: nothing to back up/);
    const noDir = await backup(['/no/such/dir/x.db']);
    expect(noDir.stderr).toContain('The directory /no/such/dir does not exist.');
  });
});
