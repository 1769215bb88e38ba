/**
 * The pull-request shepherd in the gateway: what a GitHub event means (hooks/github/) carried out against the store's
 * owners. A PR opened from a conversation's branch (by /pr, the page, or the agent: GitHub's "opened" event) belongs
 * to that conversation; a failed check, a review or a comment on it becomes a message into that conversation (in its
 * worktree: the conversation's own); a closed PR is told there and forgotten. An event no conversation owns goes to
 * the hook's home or is dropped, as the hook says. Rudder only reads here: it never pushes on a hook's behalf.
 */
import type { HookConfig } from '../../config/hooks-schema.js';
import type { ShepherdEvent } from '../../hooks/github/event.js';
import { routeShepherdEvent } from '../../hooks/github/route.js';
import type { PullRequestResult } from '../../projects/changes/types.js';
import type { Store } from '../../store/store.js';

/** What a delivery becomes: a message for the agent, a notice for the person, ownership recorded, or nothing. */
export type ShepherdPlan =
  | { kind: 'message'; conversationId: string; text: string; via: string }
  | { kind: 'notice'; conversationId: string; text: string; forget: { repository: string; pr: number } }
  | { kind: 'own'; owner: { repository: string; pr: number; branch: string; conversationId: string } }
  | { kind: 'drop'; why: string };

/** The plan for one event, given the hook (its project, `unowned`) and its home conversation. */
export function planShepherd(store: Store, hook: HookConfig, ev: ShepherdEvent, home: string): ShepherdPlan {
  if (ev.kind === 'ignore') return { kind: 'drop', why: ev.why };
  const project = hook.project;
  const owners = {
    byPr: (repository: string, pr: number) => store.prOwners.byPr(repository, pr, project)?.conversationId,
    byBranch: (_repository: string, branch: string) => store.projects.byBranch(branch, project)?.conversationId,
  };
  const route = routeShepherdEvent(ev, owners, { unowned: hook.unowned, fallback: home });
  if ('drop' in route) return { kind: 'drop', why: route.drop };
  if (ev.kind === 'pr-opened') {
    const { repository, branch } = ev.target;
    return { kind: 'own', owner: { repository, pr: ev.pr, branch, conversationId: route.to } };
  }
  if (ev.kind === 'pr-closed')
    return {
      kind: 'notice',
      conversationId: route.to,
      text: ev.text,
      forget: { repository: ev.target.repository, pr: ev.pr },
    };
  return { kind: 'message', conversationId: route.to, text: ev.text, via: route.via };
}

/** `https://github.com/<owner>/<repo>/pull/<n>` read into its repository and number. */
export function pullRequestOf(url: string): { repository: string; pr: number } | undefined {
  const m = /^https?:\/\/[^/]+\/([^/\s]+\/[^/\s]+)\/pull\/(\d+)\b/.exec(url);
  return m ? { repository: m[1]!, pr: Number(m[2]) } : undefined;
}

/** A PR /pr (or the page) opened from the conversation's branch is the conversation's from now on. */
export function recordPullRequest(store: Store, conversationId: string, project: string, r: PullRequestResult): void {
  if (!r.opened) return;
  const pr = pullRequestOf(r.url);
  if (pr) store.prOwners.record({ project, ...pr, branch: r.branch, conversationId });
}
