/**
 * The fields of GitHub's webhook payloads the shepherd reads, and nothing more (source of truth: GitHub's webhook
 * docs, as @octokit/webhooks-types has them). A payload is untrusted: it is read through these schemas, never
 * trusted to have a shape, and a field it lacks makes the event ignored with the reason, never a throw.
 */
import { z } from 'zod';

const user = z.object({ login: z.string(), type: z.string().optional() });
const repository = z.object({ full_name: z.string(), html_url: z.string() });
/** A PR as a check lists it. */
const prRef = z.object({ number: z.number().int(), head: z.object({ ref: z.string() }) });
/** A PR as the pull_request events give it. */
const pullRequest = z.object({
  number: z.number().int(),
  title: z.string().optional(),
  html_url: z.string(),
  merged: z.boolean().nullable().optional(),
  head: z.object({ ref: z.string(), repo: z.object({ full_name: z.string() }).nullable() }),
  base: z.object({ repo: z.object({ full_name: z.string() }) }),
});

export const checkRunPayload = z.object({
  action: z.string(),
  check_run: z.object({
    name: z.string(),
    conclusion: z.string().nullable(),
    head_sha: z.string(),
    html_url: z.string().nullable().optional(),
    details_url: z.string().nullable().optional(),
    output: z.object({ title: z.string().nullable().optional(), summary: z.string().nullable().optional() }).optional(),
    check_suite: z.object({ head_branch: z.string().nullable() }).optional(),
    pull_requests: z.array(prRef),
  }),
  repository,
});

export const checkSuitePayload = z.object({
  action: z.string(),
  check_suite: z.object({
    conclusion: z.string().nullable(),
    head_branch: z.string().nullable(),
    head_sha: z.string(),
    app: z.object({ name: z.string() }).optional(),
    pull_requests: z.array(prRef),
  }),
  repository,
});

export const pullRequestPayload = z.object({
  action: z.string(),
  pull_request: pullRequest,
  repository,
  sender: user,
});

export const reviewPayload = z.object({
  action: z.string(),
  review: z.object({ state: z.string(), body: z.string().nullable(), html_url: z.string(), user: user.nullable() }),
  pull_request: pullRequest,
  repository,
  sender: user,
});

export const reviewCommentPayload = z.object({
  action: z.string(),
  comment: z.object({
    path: z.string(),
    line: z.number().int().nullable().optional(),
    original_line: z.number().int().nullable().optional(),
    start_line: z.number().int().nullable().optional(),
    subject_type: z.string().optional(),
    body: z.string(),
    html_url: z.string(),
    user: user.nullable(),
  }),
  pull_request: pullRequest,
  repository,
  sender: user,
});

export const issueCommentPayload = z.object({
  action: z.string(),
  issue: z.object({ number: z.number().int(), pull_request: z.object({}).optional() }),
  comment: z.object({ body: z.string(), html_url: z.string(), user: user.nullable() }),
  repository,
  sender: user,
});

export type CheckRunPayload = z.infer<typeof checkRunPayload>;
export type CheckSuitePayload = z.infer<typeof checkSuitePayload>;
export type PullRequestPayload = z.infer<typeof pullRequestPayload>;
export type ReviewPayload = z.infer<typeof reviewPayload>;
export type ReviewCommentPayload = z.infer<typeof reviewCommentPayload>;
export type IssueCommentPayload = z.infer<typeof issueCommentPayload>;
export type GithubUser = z.infer<typeof user>;
