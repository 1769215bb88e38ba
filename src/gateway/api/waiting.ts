/**
 * The chats' waiting permission requests, as the page sees and answers them: a request too long (or
 * too strange) to approve in a chat is answered here, through the same desk as every other answer,
 * whose rules hold for the page as for any surface (an input it could not carry whole may only be refused).
 */

import { WEB } from '../../channels/web/name.js';
import type { Store } from '../../store/store.js';
import type { AnswerResult, PermissionDesk } from '../permissions/desk.js';
import type { StepLog } from '../steps/step-log.js';
import type { PermissionStep } from '../steps/types.js';
import { titleFrom } from './conversation-list.js';
import type { WaitingRequest } from './types.js';

type Deps = { store: Store; desk: PermissionDesk; steps: StepLog };

/** The page's own conversations show their requests in their timeline. */

function stepOf(d: Deps, turnId: string, requestId: string): PermissionStep | undefined {
  return d.steps
    .view(turnId)
    ?.steps.find((s): s is PermissionStep => s.kind === 'permission' && s.requestId === requestId);
}

export function waitingInChats(d: Deps): WaitingRequest[] {
  const out: WaitingRequest[] = [];
  for (const open of d.desk.all()) {
    const conv = d.store.conversation(open.conversationId);
    const step = stepOf(d, open.turnId, open.request.requestId);
    if (!conv || conv.channel === WEB || !step) continue;
    const first = conv.title ?? d.store.history.activity(conv.id).firstText;
    out.push({ channel: conv.channel, conversationId: conv.id, title: first ? titleFrom(first) : null, step });
  }
  return out;
}

/** Answers a chat's request from the page: only those of a chat's conversation are known here. */
export function answerInChat(d: Deps, requestId: string, optionId: string, by: string): AnswerResult {
  const open = d.desk.get(requestId);
  const conv = open && d.store.conversation(open.conversationId);
  if (!open || !conv || conv.channel === WEB) return { ok: false, reason: 'unknown' };
  return d.desk.answer(open.conversationId, requestId, optionId, by, 'page');
}
