/**
 * Failed checks: a check run or a check suite completed with a failing conclusion becomes a message for the
 * conversation that owns its PR (or branch), naming the check, its summary and its link. Passing, neutral,
 * skipped and cancelled checks, and checks still running, are ignored.
 */
import { cut } from '../template.js';
import { ignore, MAX_SUMMARY_CHARS, type PrTarget, type ShepherdEvent } from './event.js';
import type { CheckRunPayload, CheckSuitePayload } from './payloads.js';

/** Conclusions that mean the work on the branch needs a look. */
const FAILING = new Set(['failure', 'timed_out', 'startup_failure', 'action_required']);

/** Why a check is not worth a message, or undefined when it failed. */
function notFailed(action: string, conclusion: string | null): string | undefined {
  if (action !== 'completed') return `a check ${action}, not completed`;
  if (!conclusion || !FAILING.has(conclusion)) return `a check completed with ${conclusion ?? 'no conclusion'}`;
  return undefined;
}

function target(
  repository: string,
  branch: string | null | undefined,
  prs: ReadonlyArray<{ number: number; head: { ref: string } }>,
): PrTarget {
  return { repository, branch: prs[0]?.head.ref ?? branch ?? undefined, prs: prs.map((p) => p.number) };
}

/** "on owner/name, PR #2 (branch changes, commit ec26c3e)" */
function where(t: PrTarget, sha: string): string {
  const prs = t.prs.length ? `, PR ${t.prs.map((n) => `#${n}`).join(', ')}` : '';
  const branch = t.branch ? `branch ${t.branch}, ` : '';
  return `on ${t.repository}${prs} (${branch}commit ${sha.slice(0, 7)})`;
}

export function readCheckRun(p: CheckRunPayload): ShepherdEvent {
  const run = p.check_run;
  const skip = notFailed(p.action, run.conclusion);
  if (skip) return ignore(skip);
  const t = target(p.repository.full_name, run.check_suite?.head_branch, run.pull_requests);
  const summary = [run.output?.title, run.output?.summary].filter((s): s is string => !!s?.trim()).join('\n');
  const lines = [
    `Check "${run.name}" failed (${run.conclusion}) ${where(t, run.head_sha)}.`,
    summary ? `Summary:\n${cut(summary, MAX_SUMMARY_CHARS)}` : 'It gave no summary.',
    run.html_url ?? undefined,
    run.details_url && run.details_url !== run.html_url ? `Details: ${run.details_url}` : undefined,
  ];
  return { kind: 'message', about: 'check', target: t, text: lines.filter((l) => l !== undefined).join('\n') };
}

export function readCheckSuite(p: CheckSuitePayload): ShepherdEvent {
  const suite = p.check_suite;
  const skip = notFailed(p.action, suite.conclusion);
  if (skip) return ignore(skip);
  const t = target(p.repository.full_name, suite.head_branch, suite.pull_requests);
  const app = suite.app?.name ? ` of ${suite.app.name}` : '';
  const text =
    `The checks${app} failed (${suite.conclusion}) ${where(t, suite.head_sha)}.\n` +
    `${p.repository.html_url}/commit/${suite.head_sha}/checks`;
  return { kind: 'message', about: 'check', target: t, text };
}
