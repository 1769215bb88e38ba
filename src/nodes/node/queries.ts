/**
 * What a node answers when the front asks (request/reply, nothing durable): the Claude Code
 * sessions of one of its projects (for /sessions and /resume on the front), read from the CLI's
 * files on this machine, in the project's directory and the conversation's worktree here.
 */
import fs from 'node:fs';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { Projects } from '../../projects/service.js';
import { hasSession, listSessions } from '../../projects/sessions.js';
import { encode, errorToWire, type Query, type QueryAnswer, querySubject } from '../wire.js';

export function answerQueries(nc: NatsConnection, node: string, projects: Projects, log: Logger): Subscription {
  return nc.subscribe(querySubject(node), {
    callback: (err, m) => {
      if (err) return void log.warn({ err: err.message }, 'query subscription failed');
      let answer: QueryAnswer;
      try {
        answer = answer1(JSON.parse(new TextDecoder().decode(m.data)) as Query, node, projects);
      } catch (e) {
        answer = { ok: false, error: errorToWire(e) };
      }
      m.respond(encode(answer));
    },
  });
}

function answer1(q: Query, node: string, projects: Projects): QueryAnswer {
  const p = projects.find(q.project);
  if (!p || p.node)
    throw new RudderError('PROJECT_UNKNOWN', `Node ${node} has no project "${q.project}".`, { project: q.project });
  const wt = projects.worktreeOf(q.conversationId, p.name)?.worktree;
  const dirs = wt && fs.existsSync(wt) ? [p.path, wt] : [p.path];
  const configDir = projects.configDir();
  if (q.type === 'has-session') return { ok: true, has: hasSession(configDir, dirs, q.sessionId) };
  const sessions = listSessions(configDir, dirs, q.limit).map((s) => ({
    id: s.id,
    updatedAt: s.updatedAt,
    ...(s.firstPrompt ? { firstPrompt: s.firstPrompt } : {}),
    ...(s.lastMessage ? { lastMessage: s.lastMessage } : {}),
    ...(s.openBy ? { openPid: s.openBy.pid } : {}),
  }));
  return { ok: true, sessions, where: `${p.path} on ${node}` };
}
