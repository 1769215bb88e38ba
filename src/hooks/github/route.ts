/**
 * Which conversation a shepherd event goes to, decided from the owners the store knows (looked up by the caller,
 * for the hook's project): the PR's owner first, then the branch's; a message nobody owns goes to the project's
 * default conversation or is dropped with the reason, as the hook says (`unowned`). A PR opened is owned by its
 * branch's conversation, so it is routed by branch only; a PR opened or closed that nobody owns is dropped.
 */
import type { ShepherdEvent } from './event.js';

export interface Owners {
  /** The conversation that owns a PR (recorded when it was opened), per repository. */
  byPr(repository: string, pr: number): string | undefined;
  /** The conversation whose worktree is on a branch. */
  byBranch(repository: string, branch: string): string | undefined;
}

export interface RouteRules {
  unowned: 'default' | 'drop';
  /** The project's default conversation (or the hook's `deliver`), for unowned events. */
  fallback?: string;
}

export type Route = { to: string; via: 'pr' | 'branch' | 'unowned' } | { drop: string };

type Routed = Exclude<ShepherdEvent, { kind: 'ignore' }>;

/** The owner of an event's PR or branch. */
function owner(ev: Routed, owners: Owners): { to: string; via: 'pr' | 'branch' } | undefined {
  const { repository, branch, prs } = ev.target;
  if (ev.kind !== 'pr-opened')
    for (const pr of prs) {
      const to = owners.byPr(repository, pr);
      if (to) return { to, via: 'pr' };
    }
  const to = branch === undefined ? undefined : owners.byBranch(repository, branch);
  return to ? { to, via: 'branch' } : undefined;
}

export function routeShepherdEvent(ev: Routed, owners: Owners, rules: RouteRules): Route {
  const found = owner(ev, owners);
  if (found) return found;
  const what = ev.target.prs.length
    ? `PR #${ev.target.prs.join(', #')}`
    : `branch ${ev.target.branch ?? '(none named)'}`;
  // A PR no conversation's branch opened is someone else's work: its opening and closing are not news here.
  if (ev.kind !== 'message') return { drop: `no conversation owns ${what} on ${ev.target.repository}` };
  if (rules.unowned === 'default' && rules.fallback) return { to: rules.fallback, via: 'unowned' };
  return { drop: `no conversation owns ${what} on ${ev.target.repository}` };
}
