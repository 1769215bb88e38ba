/**
 * The data dir holds the store, the log, the web token, attachments and chat sessions: it is the
 * user's alone. It is created 0700 with every file in it 0600 (and the process umask is 077), and
 * a dir that another user owns or that others can write is refused before anything in it is read,
 * since a planted web-token or config.json would be trusted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RudderError } from '../errors.js';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

let userUmask: number | undefined;

/** Files and dirs this process creates are the user's alone from here on. */
export function usePrivateUmask(): void {
  const previous = process.umask(0o077);
  userUmask ??= previous;
}

/**
 * Runs a synchronous spawn under the user's own umask, so agents create files in the project as
 * the user would (only the spawn itself runs under it; Node is single-threaded here).
 */
export function withUserUmask<T>(spawn: () => T): T {
  if (userUmask === undefined) return spawn();
  const ours = process.umask(userUmask);
  try {
    return spawn();
  } finally {
    process.umask(ours);
  }
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;
const myUid = () => process.getuid?.();

function unsafe(dir: string, detail: string, fix: string): RudderError {
  return new RudderError('DATA_DIR_UNSAFE', `${detail} ${fix}`, { dataDir: dir });
}

/** Refuses a path that someone other than this user (or root) owns, or that others can write. */
function checkOwnedAndPrivate(dir: string, p: string, st: fs.Stats, what: string): void {
  const uid = myUid();
  if (uid === undefined) return; // no uids on this platform
  if (st.uid !== uid && st.uid !== 0) {
    throw unsafe(
      dir,
      `${what} ${p} belongs to uid ${st.uid}, not to you (uid ${uid}): whoever owns it could have planted ` +
        `its web-token or config.`,
      'Use a data dir of your own (set RUDDER_HOME), or chown it to yourself after checking its contents.',
    );
  }
  if (st.mode & 0o022) {
    throw unsafe(
      dir,
      `${what} ${p} can be written by other users (mode ${octal(st.mode)}): anyone could have planted its ` +
        `web-token or config.`,
      `Check its contents, run chmod go-w ${JSON.stringify(p)} (Rudder makes it 0700), and start again.`,
    );
  }
}

/**
 * Creates the data dir (0700), refuses it when it is not safe, and takes group and other access
 * away from everything already in it (an older install wrote 0644 files). Symbolic links inside
 * are left alone, never followed.
 */
export function prepareDataDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (err) {
    throw unsafe(
      dir,
      `The data dir ${dir} could not be created (${(err as Error).message}).`,
      'Set RUDDER_HOME to a directory you can write.',
    );
  }
  const st = fs.statSync(dir);
  if (!st.isDirectory())
    throw unsafe(dir, `The data dir ${dir} is not a directory.`, 'Set RUDDER_HOME to a directory.');
  checkOwnedAndPrivate(dir, dir, st, 'The data dir');
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw unsafe(
      dir,
      `The data dir ${dir} is not writable (${(err as Error).message}).`,
      'Set RUDDER_HOME to a directory you can write.',
    );
  }
  tighten(dir, dir, st);
}

/** The same refusals as prepareDataDir, for `rudder doctor`: it creates and changes nothing. */
export function inspectDataDir(dir: string): void {
  const walk = (p: string, st: fs.Stats): void => {
    checkOwnedAndPrivate(dir, p, st, p === dir ? 'The data dir' : st.isDirectory() ? 'The directory' : 'The file');
    if (!st.isDirectory()) return;
    for (const name of fs.readdirSync(p)) {
      const cst = fs.lstatSync(path.join(p, name));
      if (cst.isDirectory() || cst.isFile()) walk(path.join(p, name), cst);
    }
  };
  const st = fs.statSync(dir);
  if (!st.isDirectory())
    throw unsafe(dir, `The data dir ${dir} is not a directory.`, 'Set RUDDER_HOME to a directory.');
  walk(dir, st);
}

function tighten(root: string, p: string, st: fs.Stats): void {
  const uid = myUid();
  if (uid === undefined) return;
  if (st.isDirectory()) {
    if (p !== root) checkOwnedAndPrivate(root, p, st, 'The directory');
    if (st.uid === uid && st.mode & 0o077) fs.chmodSync(p, PRIVATE_DIR_MODE);
    for (const name of fs.readdirSync(p)) {
      const child = path.join(p, name);
      const cst = fs.lstatSync(child);
      if (!cst.isSymbolicLink()) tighten(root, child, cst);
    }
    return;
  }
  if (!st.isFile()) return;
  checkOwnedAndPrivate(root, p, st, 'The file');
  if (st.uid === uid && st.mode & 0o077) fs.chmodSync(p, PRIVATE_FILE_MODE);
}
