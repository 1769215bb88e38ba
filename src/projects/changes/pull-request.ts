/**
 * A pull request through the GitHub CLI, when it is installed and logged in. Whether it is
 * installed is a PATH lookup (nothing runs); logged in is `gh auth status`. When either is
 * missing the result says what to do, and `gh pr create` never runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ERRORS, RudderError } from '../../errors.js';
import { topOf } from './repo.js';
import { complaint, type GitRunner, reviewEnv } from './run.js';
import type { GithubCli, PullRequestResult } from './types.js';

const GH_TIMEOUT_MS = 60_000;
/** gh never asks, never checks for updates, never colours. */
const GH_ENV = { GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1', GH_SPINNER_DISABLED: '1' };

/** The gh executable on PATH, found without running anything. */
export function findGh(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const bin = path.join(dir, 'gh');
    try {
      const st = fs.statSync(bin);
      if (st.isFile()) {
        fs.accessSync(bin, fs.constants.X_OK);
        return bin;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Whether a pull request can be opened from dir; env is the one gh would run with (its PATH, GH_TOKEN). */
export async function githubCli(run: GitRunner, dir: string, env: NodeJS.ProcessEnv = process.env): Promise<GithubCli> {
  const bin = findGh(env);
  if (!bin) return { available: false, code: 'REVIEW_GH_MISSING', message: ERRORS.REVIEW_GH_MISSING };
  const r = await run.exec(bin, ['auth', 'status'], {
    cwd: dir,
    read: true,
    env: ghEnv(env),
    timeoutMs: GH_TIMEOUT_MS,
  });
  if (r.code !== 0) return { available: false, code: 'REVIEW_GH_LOGGED_OUT', message: ERRORS.REVIEW_GH_LOGGED_OUT };
  return { available: true, bin };
}

/** The environment given (its PATH, HOME, GH_TOKEN), with the same GIT_* removal as git's, and gh kept quiet. */
function ghEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(reviewEnv(env))) if (v !== undefined) out[k] = v;
  return { ...out, ...GH_ENV };
}

export interface PullRequestOptions {
  branch: string;
  base: string;
  /** Without a title, gh fills title and body from the commits. */
  title?: string;
  body?: string;
  draft?: boolean;
  /** The environment gh runs with (default: Rudder's own). */
  env?: NodeJS.ProcessEnv;
}

/** Opens a pull request of branch (pushed already) into base; says what is missing when gh cannot. */
export async function openPullRequest(run: GitRunner, repo: string, o: PullRequestOptions): Promise<PullRequestResult> {
  const top = await topOf(run, repo);
  const env = o.env ?? process.env;
  const gh = await githubCli(run, top, env);
  if (!gh.available) return { opened: false, code: gh.code, message: gh.message };
  for (const [name, v] of [
    ['branch', o.branch],
    ['base', o.base],
  ] as const)
    if (!v || v.startsWith('-')) throw new RudderError('REVIEW_PR_FAILED', `"${v}" is not a ${name} name.`);
  const text = o.title?.trim() ? ['--title', o.title.trim(), '--body', o.body ?? ''] : ['--fill'];
  const args = ['pr', 'create', '--head', o.branch, '--base', o.base, ...text, ...(o.draft ? ['--draft'] : [])];
  const r = await run.exec(gh.bin, args, { cwd: top, env: ghEnv(env), timeoutMs: GH_TIMEOUT_MS });
  const url = /https?:\/\/\S+/.exec(r.stdout)?.[0];
  if (r.code !== 0 || !url)
    throw new RudderError('REVIEW_PR_FAILED', `gh pr create: ${complaint(r)}`, { branch: o.branch, base: o.base });
  return { opened: true, url, branch: o.branch, base: o.base };
}
