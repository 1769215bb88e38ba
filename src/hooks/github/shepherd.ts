/**
 * The pull-request shepherd's one door: a GitHub event name and its payload in, what it means out (event.ts).
 * One table entry per event: the schema of the fields read and the reader. Never throws: an event not in the
 * table, not taken by the hook, or lacking a field is ignored with the reason.
 */
import type { z } from 'zod';
import { readCheckRun, readCheckSuite } from './checks.js';
import { ignore, SHEPHERD_EVENTS, type ShepherdEvent, type ShepherdEventName, type ShepherdOptions } from './event.js';
import {
  checkRunPayload,
  checkSuitePayload,
  issueCommentPayload,
  pullRequestPayload,
  reviewCommentPayload,
  reviewPayload,
} from './payloads.js';
import { readPullRequest } from './pulls.js';
import { readIssueComment, readReview, readReviewComment } from './reviews.js';

interface Reader<S extends z.ZodType> {
  schema: S;
  read: (payload: z.infer<S>, opts: ShepherdOptions) => ShepherdEvent;
}

const reader = <S extends z.ZodType>(schema: S, read: Reader<S>['read']) => ({ schema, read }) as Reader<z.ZodType>;

const READERS: Record<ShepherdEventName, Reader<z.ZodType>> = {
  check_run: reader(checkRunPayload, readCheckRun),
  check_suite: reader(checkSuitePayload, readCheckSuite),
  pull_request: reader(pullRequestPayload, readPullRequest),
  pull_request_review: reader(reviewPayload, readReview),
  pull_request_review_comment: reader(reviewCommentPayload, readReviewComment),
  issue_comment: reader(issueCommentPayload, readIssueComment),
};

const isShepherdEvent = (event: string): event is ShepherdEventName =>
  (SHEPHERD_EVENTS as readonly string[]).includes(event);

/** What a GitHub event (X-GitHub-Event) with its payload means for the conversations. */
export function readGithubEvent(event: string, payload: unknown, opts: ShepherdOptions = {}): ShepherdEvent {
  if (event === 'ping') return ignore('a ping: GitHub checking the hook');
  if (!isShepherdEvent(event)) return ignore(`${event} is not an event the shepherd reads`);
  if (opts.events && !opts.events.includes(event)) return ignore(`${event} is not among this hook's events`);
  const { schema, read } = READERS[event];
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') || '(top level)';
    return ignore(`the ${event} payload lacks ${field} or has it in another shape`);
  }
  return read(parsed.data, opts);
}
