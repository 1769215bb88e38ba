/**
 * Finding, reading and validating the config. A bad config names the key and the problem; the
 * caller prints it and exits with code 2 before starting anything.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import { RudderError } from '../errors.js';
import { mergeHot } from './hot.js';
import { projectProblems } from './projects.js';
import { type Config, configSchema } from './schema.js';

export const CONFIG_FILE = 'rudder.config.json';

/** The data dir: RUDDER_HOME, else ~/.rudder. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.RUDDER_HOME || path.join(os.homedir(), '.rudder'));
}

/** rudder.config.json in the working directory, else $RUDDER_HOME/config.json, else none (defaults). */
export function findConfigFile(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string | undefined {
  const local = path.join(cwd, CONFIG_FILE);
  if (fs.existsSync(local)) return local;
  const home = path.join(dataDir(env), 'config.json');
  return fs.existsSync(home) ? home : undefined;
}

/** agent.env["BAD KEY"], steering.maxLive, channels.telegram.owners[0] */
function keyPath(p: ReadonlyArray<PropertyKey>): string {
  if (!p.length) return '(top level)';
  return p
    .map((k, i) =>
      typeof k === 'number'
        ? `[${k}]`
        : /^[A-Za-z_][\w-]*$/.test(String(k))
          ? `${i ? '.' : ''}${String(k)}`
          : `[${JSON.stringify(String(k))}]`,
    )
    .join('');
}

/** One line per problem: "agent.permissionMode: Invalid option: expected one of ...". */
export function describeIssues(issues: z.core.$ZodIssue[]): string[] {
  return issues.flatMap((i) => {
    if (i.code === 'unrecognized_keys')
      return i.keys.map((k) => `${keyPath([...i.path, k])}: unknown key (remove it or check its spelling)`);
    if (i.code === 'invalid_key')
      return [`${keyPath(i.path)}: invalid key (${i.issues.map((x) => x.message).join('; ')})`];
    return [`${keyPath(i.path)}: ${i.message}`];
  });
}

/**
 * Validates a parsed JSON value; throws CONFIG_INVALID naming every bad key. The project
 * directories are checked against the data dir (RUDDER_HOME, else ~/.rudder, unless given).
 */
export function parseConfig(value: unknown, source = 'config', opts: { dataDir?: string } = {}): Config {
  const r = configSchema.safeParse(value ?? {});
  if (!r.success) {
    const lines = describeIssues(r.error.issues);
    throw new RudderError('CONFIG_INVALID', `${source}:\n  ${lines.join('\n  ')}`, {
      source,
      keys: r.error.issues.map((i) => keyPath(i.path)),
    });
  }
  checkProjects(r.data, opts.dataDir ?? dataDir(), source);
  return r.data;
}

/** The checks of the projects section that need the file system; throws CONFIG_INVALID naming each bad key. */
export function checkProjects(config: Config, dataDirPath: string, source = 'config'): void {
  const problems = projectProblems(config, dataDirPath);
  if (!problems.length) return;
  const lines = problems.map((p) => `${keyPath(p.path)}: ${p.message}`);
  throw new RudderError('CONFIG_INVALID', `${source}:\n  ${lines.join('\n  ')}`, {
    source,
    keys: problems.map((p) => keyPath(p.path)),
  });
}

export interface LoadedConfig {
  config: Config;
  /** The file it came from; undefined when running on defaults. */
  file: string | undefined;
}

export function loadConfig(file: string | undefined = findConfigFile()): LoadedConfig {
  if (!file) return { config: parseConfig({}), file: undefined };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new RudderError('CONFIG_UNREADABLE', `${file}: ${(err as Error).message}`, { source: file }, err);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new RudderError(
      'CONFIG_INVALID',
      `${file}: not valid JSON (${(err as Error).message})`,
      { source: file },
      err,
    );
  }
  return { config: parseConfig(value, file), file };
}

/**
 * Refuses a config file that someone else could change: owned by another user (root aside),
 * writable by group or others, or in a directory they can write (where they could replace it).
 */
export function checkConfigFile(file: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  let st: fs.Stats;
  let dir: fs.Stats;
  try {
    st = fs.statSync(file);
    dir = fs.statSync(path.dirname(file));
  } catch (err) {
    throw new RudderError('CONFIG_UNREADABLE', `${file}: ${(err as Error).message}`, { source: file }, err);
  }
  const octal = (m: number) => `0${(m & 0o777).toString(8)}`;
  if (st.uid !== uid && st.uid !== 0) {
    throw new RudderError(
      'CONFIG_UNSAFE',
      `${file} belongs to uid ${st.uid}, not to you (uid ${uid}). Check it, then chown it to yourself, or ` +
        `start Rudder elsewhere.`,
      { source: file },
    );
  }
  if (st.mode & 0o022) {
    throw new RudderError(
      'CONFIG_UNSAFE',
      `${file} can be written by other users (mode ${octal(st.mode)}). Check it, run chmod go-w on it, and ` +
        `start again.`,
      { source: file },
    );
  }
  if (dir.mode & 0o022 && !(dir.mode & 0o1000)) {
    throw new RudderError(
      'CONFIG_UNSAFE',
      `${path.dirname(file)} can be written by other users (mode ${octal(dir.mode)}), ` +
        `so ${path.basename(file)} could be replaced. Run chmod go-w on the directory, or keep the config in ` +
        `$RUDDER_HOME/config.json.`,
      { source: file },
    );
  }
}

/** The file is usable when it exists, is trusted and validates; a missing file means defaults. */
export function loadTrustedConfig(file: string | undefined = findConfigFile()): LoadedConfig {
  if (file) checkConfigFile(file);
  return loadConfig(file);
}

/** What a reload did, for the log: hot keys taken, other keys left for the next start, or why the file was not used. */
export interface ConfigEvents {
  applied?(keys: string[], config: Config): void;
  /** Each changed key is reported once (again only after it changes back and once more). */
  pending?(keys: string[]): void;
  rejected?(error: RudderError): void;
}

/**
 * The config as the gateway reads it per message. The file is re-read when it changes, but only
 * its hot keys (config/hot.ts) are taken; a change to any other key is reported and waits for a
 * restart. A bad or untrusted edit keeps the last good config.
 */
export class LiveConfig {
  private cached: Config;
  /** mtime, size and inode of the file last read: a save that keeps one of them still moves another. */
  private stamp = '';
  private lastCheck = 0;
  private lastError: string | undefined;
  /** Pending keys already reported, with the value reported. */
  private readonly reported = new Map<string, string>();
  private readonly listeners = new Set<(config: Config, keys: string[]) => void>();

  constructor(
    private readonly file: string | undefined,
    initial: Config,
    private readonly events: ConfigEvents = {},
    /** Stat the file at most this often. */
    private readonly checkEveryMs = 250,
  ) {
    this.cached = initial;
    if (file) this.stamp = statStamp(file);
  }

  current(): Config {
    if (!this.file) return this.cached;
    const now = Date.now();
    if (now - this.lastCheck < this.checkEveryMs) return this.cached;
    this.lastCheck = now;
    const m = statStamp(this.file);
    if (m === this.stamp) return this.cached;
    this.stamp = m;
    let next: Config;
    try {
      next = loadTrustedConfig(this.file).config;
      this.lastError = undefined;
    } catch (err) {
      const e = err as RudderError;
      if (e.message !== this.lastError) this.events.rejected?.(e);
      this.lastError = e.message;
      return this.cached;
    }
    const merged = mergeHot(this.cached, next);
    this.cached = merged.config;
    if (merged.applied.length) {
      this.events.applied?.(merged.applied, this.cached);
      for (const l of this.listeners) l(this.cached, merged.applied);
    }
    this.reportPending(merged.pending, next);
    return this.cached;
  }

  /** Called with the config after a re-read applied hot keys (inside the current() call that read it). */
  onChange(listener: (config: Config, keys: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private reportPending(keys: string[], next: Config): void {
    for (const k of [...this.reported.keys()]) if (!keys.includes(k)) this.reported.delete(k);
    const fresh = keys.filter((k) => this.reported.get(k) !== valueAt(next, k));
    for (const k of fresh) this.reported.set(k, valueAt(next, k));
    if (fresh.length) this.events.pending?.(fresh);
  }
}

function valueAt(config: Config, key: string): string {
  let v: unknown = config;
  for (const part of key.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return JSON.stringify(v) ?? 'undefined';
}

function statStamp(file: string): string {
  try {
    const s = fs.statSync(file);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return 'missing';
  }
}
