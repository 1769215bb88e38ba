/**
 * Pushes a branch to the project's remote: the branch's own upstream remote, else origin, else
 * the only one. Never forced. The remote's URL is reported without any credentials in it.
 */
import { RudderError } from '../../errors.js';
import { checkBranch, topOf } from './repo.js';
import { complaint, type GitRunner, ok } from './run.js';
import type { PushResult } from './types.js';

const PUSH_TIMEOUT_MS = 180_000;

/** A URL or a message with the user and password of any URL in it blanked. */
export function withoutCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}

/** The remote a branch goes to, or REVIEW_NO_REMOTE; several without a choice name each. */
export async function remoteFor(run: GitRunner, top: string, branch: string, wanted?: string): Promise<string> {
  const remotes = ok(await run.git(['remote'], { cwd: top, read: true }), 'git remote')
    .stdout.split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (!remotes.length) throw new RudderError('REVIEW_NO_REMOTE', undefined, { repo: top });
  if (wanted !== undefined) {
    if (!remotes.includes(wanted))
      throw new RudderError('REVIEW_NO_REMOTE', `There is no remote "${wanted}"; remotes: ${remotes.join(', ')}.`);
    return wanted;
  }
  const upstream = await run.git(['config', '--get', `branch.${branch}.remote`], { cwd: top, read: true });
  const own = upstream.stdout.trim();
  if (upstream.code === 0 && remotes.includes(own)) return own;
  if (remotes.includes('origin')) return 'origin';
  if (remotes.length === 1) return remotes[0]!;
  throw new RudderError(
    'REVIEW_NO_REMOTE',
    `There are several remotes (${remotes.join(', ')}) and none is origin. Name one, or set the branch's ` +
      `upstream with git branch --set-upstream-to.`,
    { repo: top },
  );
}

export async function push(
  run: GitRunner,
  repo: string,
  branch: string,
  o: { remote?: string } = {},
): Promise<PushResult> {
  const top = await topOf(run, repo);
  const head = await checkBranch(run, top, branch, 'the branch to push');
  const remote = await remoteFor(run, top, branch, o.remote);
  const url = withoutCredentials(
    (await run.git(['remote', 'get-url', remote], { cwd: top, read: true })).stdout.trim(),
  );
  const ref = `refs/heads/${branch}`;
  const r = await run.git(['push', '--porcelain', remote, `${ref}:${ref}`], { cwd: top, timeoutMs: PUSH_TIMEOUT_MS });
  // --porcelain: "<flag>\t<from>:<to>\t<summary>" per ref; "*" new, " " updated, "=" up to date, "!" rejected.
  const line = r.stdout.split('\n').find((l) => l.includes(`\t${ref}:${ref}\t`));
  const flag = line?.[0];
  if (r.code !== 0 || !line || flag === '!') {
    const why = line?.split('\t')[2] ?? complaint(r);
    throw new RudderError('REVIEW_PUSH_FAILED', `git push ${remote} ${branch}: ${withoutCredentials(why)}`, {
      remote,
      branch,
    });
  }
  const kind = flag === '*' ? 'created' : flag === '=' ? 'up-to-date' : 'updated';
  return { remote, url, branch, kind, head };
}
