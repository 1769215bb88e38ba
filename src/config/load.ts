/**
 * Finding, reading and validating the config. A bad config names the key and the problem; the
 * caller prints it and exits with code 2 before starting anything.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import { RudderError } from '../errors.js';
import { projectProblems } from './projects.js';
import { configSchema, type Config } from './schema.js';

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
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : /^[A-Za-z_][\w-]*$/.test(String(k)) ? `${i ? '.' : ''}${String(k)}` : `[${JSON.stringify(String(k))}]`))
    .join('');
}

/** One line per problem: "agent.permissionMode: Invalid option: expected one of ...". */
export function describeIssues(issues: z.core.$ZodIssue[]): string[] {
  return issues.flatMap((i) => {
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${keyPath([...i.path, k])}: unknown key (remove it or check its spelling)`);
    if (i.code === 'invalid_key') return [`${keyPath(i.path)}: invalid key (${i.issues.map((x) => x.message).join('; ')})`];
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
    throw new RudderError('CONFIG_INVALID', `${source}:\n  ${lines.join('\n  ')}`, { source, keys: r.error.issues.map((i) => keyPath(i.path)) });
  }
  checkProjects(r.data, opts.dataDir ?? dataDir(), source);
  return r.data;
}

/** The checks of the projects section that need the file system; throws CONFIG_INVALID naming each bad key. */
export function checkProjects(config: Config, dataDirPath: string, source = 'config'): void {
  const problems = projectProblems(config, dataDirPath);
  if (!problems.length) return;
  const lines = problems.map((p) => `${keyPath(p.path)}: ${p.message}`);
  throw new RudderError('CONFIG_INVALID', `${source}:\n  ${lines.join('\n  ')}`, { source, keys: problems.map((p) => keyPath(p.path)) });
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
    throw new RudderError('CONFIG_INVALID', `${file}: not valid JSON (${(err as Error).message})`, { source: file }, err);
  }
  return { config: parseConfig(value, file), file };
}

/**
 * The config as the gateway reads it per message: re-read when the file changes, so hot flags such
 * as steering.enabled take effect without a restart. A bad edit keeps the last good config.
 */
export class LiveConfig {
  private cached: Config;
  private mtimeMs = 0;
  private lastCheck = 0;
  private lastError: string | undefined;

  constructor(
    private readonly file: string | undefined,
    initial: Config,
    private readonly onReload: (next: Config, error?: RudderError) => void = () => undefined,
    /** Stat the file at most this often. */
    private readonly checkEveryMs = 250,
  ) {
    this.cached = initial;
    if (file) this.mtimeMs = statMtime(file);
  }

  current(): Config {
    if (!this.file) return this.cached;
    const now = Date.now();
    if (now - this.lastCheck < this.checkEveryMs) return this.cached;
    this.lastCheck = now;
    const m = statMtime(this.file);
    if (m === this.mtimeMs) return this.cached;
    this.mtimeMs = m;
    try {
      this.cached = loadConfig(this.file).config;
      this.lastError = undefined;
      this.onReload(this.cached);
    } catch (err) {
      const e = err as RudderError;
      if (e.message !== this.lastError) this.onReload(this.cached, e);
      this.lastError = e.message;
    }
    return this.cached;
  }
}

function statMtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}
