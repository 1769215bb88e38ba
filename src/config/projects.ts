/**
 * The checks of the `projects` section that the schema cannot make: the directories exist, none is
 * inside the data dir, a project with worktrees is a git repository, and every name used
 * (defaultProject, channels.<x>.projects) is a configured project. Each problem names its key.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isRudderError } from '../errors.js';
import { repoTopSync } from '../ops/git.js';
import type { Config } from './schema.js';

export interface ConfigProblem {
  path: PropertyKey[];
  message: string;
}

/** A configured path as an absolute one: `~/x` is in the home directory, a relative one is from where Rudder starts. */
export function expandPath(p: string, base = process.cwd()): string {
  if (p === '~' || p.startsWith('~/')) return path.join(os.homedir(), p.slice(1));
  return path.resolve(base, p);
}

/** Whether `inner` is `outer` or inside it, comparing real paths where they exist. */
export function isInside(inner: string, outer: string): boolean {
  const rel = path.relative(realOrSelf(outer), realOrSelf(inner));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    // Not there (yet): its nearest existing parent decides where it really is.
    const parent = path.dirname(p);
    return parent === p ? p : path.join(realOrSelf(parent), path.basename(p));
  }
}

export function projectProblems(cfg: Config, dataDir: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [name, p] of Object.entries(cfg.projects ?? {})) {
    // A node's project is checked by that node, against its own config.
    if (p.path !== undefined) problems.push(...directoryProblems(['projects', name], p.path, p, dataDir));
  }
  return [...problems, ...nameProblems(cfg)];
}

type ProjectConfig = NonNullable<Config['projects']>[string];

/** The project's directory: there, a directory, outside the data dir; a git repository when it has worktrees. */
function directoryProblems(at: string[], configured: string, p: ProjectConfig, dataDir: string): ConfigProblem[] {
  const dir = expandPath(configured);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dir);
  } catch {
    return [{ path: [...at, 'path'], message: `${dir} does not exist (create it, or correct the path)` }];
  }
  if (!stat.isDirectory()) return [{ path: [...at, 'path'], message: `${dir} is not a directory` }];
  if (isInside(dir, dataDir))
    return [
      {
        path: [...at, 'path'],
        message:
          `${dir} is inside Rudder's data dir ${dataDir}, which holds the store and the web token; an ` +
          `agent must not work there. Choose a directory outside it`,
      },
    ];
  if (!p.worktrees) return [];
  let top: string | undefined;
  try {
    top = repoTopSync(dir);
  } catch (err) {
    return [{ path: [...at, 'worktrees'], message: isRudderError(err) ? err.message : String(err) }];
  }
  if (!top)
    return [
      {
        path: [...at, 'worktrees'],
        message:
          `${dir} is not a git repository, so conversations cannot get worktrees there (run git init ` +
          `and commit once, or set worktrees to false)`,
      },
    ];
  return typeof p.worktrees === 'object' ? worktreeDirProblems(at, p.worktrees.dir, top, dataDir) : [];
}

/** Where the worktrees go: outside the data dir, and outside the repository (each agent would see the others). */
function worktreeDirProblems(at: string[], dir: string, top: string, dataDir: string): ConfigProblem[] {
  const wdir = expandPath(dir);
  const key = [...at, 'worktrees', 'dir'];
  if (isInside(wdir, dataDir))
    return [{ path: key, message: `${wdir} is inside Rudder's data dir ${dataDir}; choose a directory outside it` }];
  if (isInside(wdir, top))
    return [
      {
        path: key,
        message:
          `${wdir} is inside the repository ${top}, where every agent would see the other ` +
          `worktrees; choose a directory outside it`,
      },
    ];
  return [];
}

/** Every project named elsewhere (defaultProject, channels.<x>.projects) is a configured one. */
function nameProblems(cfg: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const names = Object.keys(cfg.projects ?? {});
  const known = names.length ? `projects: ${names.join(', ')}` : 'no projects are configured';
  if (cfg.defaultProject !== undefined && !names.includes(cfg.defaultProject)) {
    problems.push({ path: ['defaultProject'], message: `no project "${cfg.defaultProject}" (${known})` });
  }
  for (const [channel, section] of Object.entries(cfg.channels)) {
    for (const [key, name] of Object.entries(
      (section as { projects?: Record<string, string> } | undefined)?.projects ?? {},
    )) {
      if (!names.includes(name))
        problems.push({ path: ['channels', channel, 'projects', key], message: `no project "${name}" (${known})` });
    }
  }
  return problems;
}
