/**
 * What a node answers when the front asks (request/reply, nothing durable): the past sessions of
 * one of its projects (for /sessions and /resume on the front), in the project's directory and the
 * conversation's worktree here: Claude Code's, read from the CLI's files on this machine, or the
 * Codex threads of its app-server here when that is the project's agent (projects/past-sessions.ts);
 * the review of a conversation's tree here (review.ts), answered when its git is done; and what runs in
 * the panes of its tmux servers, attached and let go of there (panes.ts).
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { SessionHistory } from '../../agents/history.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { knownSession, pastSessions } from '../../projects/past-sessions.js';
import type { Project } from '../../projects/projects.js';
import type { Projects } from '../../projects/service.js';
import { encode, errorToWire, parseReviewQuery, type Query, type QueryAnswer, querySubject } from '../wire.js';
import { ownProject, sessionDirs } from './own-project.js';
import { isPaneQuery, type NodePanes } from './panes.js';
import type { NodeReviews } from './review.js';

export interface QueryDeps {
  node: string;
  projects: Projects;
  /** A project's past sessions when its agent lists them itself (Codex's threads); else Claude Code's files. */
  history(p: Project): SessionHistory | undefined;
  /** The review of a conversation's tree here. */
  reviews: NodeReviews;
  /** The person's panes here: what runs in them, attach, detach. */
  panes: NodePanes;
  log: Logger;
}

export function answerQueries(nc: NatsConnection, d: QueryDeps): Subscription {
  return nc.subscribe(querySubject(d.node), {
    callback: (err, m) => {
      if (err) return void d.log.warn({ err: err.message }, 'query subscription failed');
      const review = parseReviewQuery(m.data);
      if (review) return void d.reviews.answer(review).then((a) => m.respond(encode(a)));
      // Answered when the agent has (Codex's app-server is asked); the requests are independent of each other.
      void Promise.resolve()
        .then(() => answer1(JSON.parse(new TextDecoder().decode(m.data)) as Query, d))
        .catch((e: unknown): QueryAnswer => ({ ok: false, error: errorToWire(e) }))
        .then((answer) => m.respond(encode(answer)));
    },
  });
}

async function answer1(q: Query, d: QueryDeps): Promise<QueryAnswer> {
  const { node, projects } = d;
  if (q.type === 'review') throw new RudderError('BAD_REQUEST', `A review step node ${node} cannot run.`);
  // The panes are looked at (tmux, /proc) and attached there.
  if (isPaneQuery(q)) return d.panes.answer(q);
  const p = ownProject(projects, node, q.project);
  const dirs = sessionDirs(projects, q.conversationId, p);
  const from = { history: d.history(p), configDir: projects.configDir() };
  if (q.type === 'has-session') return { ok: true, has: (await knownSession(from, dirs, q.sessionId)).known };
  const listed = await pastSessions(from, dirs, q.limit);
  const sessions = listed.sessions.map((s) => ({
    id: s.id,
    updatedAt: s.updatedAt,
    ...(s.firstPrompt ? { firstPrompt: s.firstPrompt } : {}),
    ...(s.lastMessage ? { lastMessage: s.lastMessage } : {}),
    ...(s.openBy ? { openPid: s.openBy.pid } : {}),
  }));
  return { ok: true, sessions, where: `${p.path} on ${node}`, noun: listed.noun };
}
