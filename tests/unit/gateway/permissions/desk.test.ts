/**
 * The permission desk (src/gateway/permissions/desk.ts): the one owner of open requests. Each
 * request is answered at most once with an option id, reaches its session as that id, and every
 * change is told to the surfaces in the order they subscribed.
 */
import { describe, expect, it } from 'vitest';
import type { AgentSession, PermissionAnswer, PermissionRequest } from '../../../../src/agents/session.js';
import { PermissionDesk, type PermissionEvent } from '../../../../src/gateway/permissions/desk.js';
import { silentLogger } from '../../../../src/ops/logger.js';

const request = (requestId: string): PermissionRequest => ({
  requestId,
  toolName: 'Bash',
  input: { command: 'ls' },
  options: [
    { id: 'accept', label: 'Yes' },
    { id: 'acceptForSession', label: 'Yes, for the session', effect: 'later ones too' },
    { id: 'decline', label: 'No' },
  ],
});

/** A session that records the answers it is given; `delivers` false plays one whose turn ended. */
function session(delivers = true) {
  const answers: Array<{ requestId: string; answer: PermissionAnswer }> = [];
  const s = {
    answerPermission: (requestId: string, answer: PermissionAnswer) => (answers.push({ requestId, answer }), delivers),
  } as unknown as AgentSession;
  return { s, answers };
}

function desk() {
  const d = new PermissionDesk(silentLogger());
  const seen: string[] = [];
  d.subscribe((e: PermissionEvent) => seen.push(`first:${e.kind}:${e.open.request.requestId}`));
  d.subscribe((e: PermissionEvent) => seen.push(`second:${e.kind}`));
  return { d, seen };
}

describe('PermissionDesk', () => {
  it('passes the chosen option id to the session as it is, once; a second answer finds it gone', () => {
    const { d, seen } = desk();
    const a = session();
    d.opened({ conversationId: 'c', turnId: 't', messageId: 'm', request: request('r1'), session: a.s });
    expect(d.pending('c')?.request.requestId).toBe('r1');
    expect(d.answer('c', 'r1', 'acceptForSession', 'web:owner')).toEqual({ ok: true, label: 'Yes, for the session' });
    expect(d.answer('c', 'r1', 'decline', 'web:owner')).toEqual({ ok: false, reason: 'unknown' });
    expect(a.answers).toEqual([{ requestId: 'r1', answer: { optionId: 'acceptForSession' } }]);
    expect(seen).toEqual(['first:opened:r1', 'second:opened', 'first:answered:r1', 'second:answered']);
    expect(d.count()).toBe(0);
  });

  it('refuses an answer from another conversation, and does not announce one that could not reach the agent', () => {
    const { d, seen } = desk();
    const gone = session(false);
    d.opened({ conversationId: 'c', turnId: 't', messageId: null, request: request('r2'), session: gone.s });
    expect(d.answer('other', 'r2', 'accept', 'x')).toEqual({ ok: false, reason: 'unknown' });
    expect(d.answer('c', 'r2', 'accept', 'x')).toEqual({ ok: false, reason: 'undelivered' });
    expect(seen).toEqual(['first:opened:r2', 'second:opened']);
  });

  it("withdraws only the ending turn's requests; the newest open one is the conversation's pending one", () => {
    const { d, seen } = desk();
    const a = session();
    d.opened({ conversationId: 'c', turnId: 't1', messageId: null, request: request('old'), session: a.s });
    d.opened({ conversationId: 'c', turnId: 't2', messageId: null, request: request('new'), session: a.s });
    expect(d.pending('c')?.request.requestId).toBe('new');
    d.withdrawTurn('t1');
    expect(seen.filter((x) => x.includes('withdrawn'))).toEqual(['first:withdrawn:old', 'second:withdrawn']);
    expect(d.get('old')).toBeUndefined();
    expect(d.pending('c')?.request.requestId).toBe('new');
  });

  it('a failing surface does not keep the others from hearing', () => {
    const d = new PermissionDesk(silentLogger());
    const heard: string[] = [];
    d.subscribe(() => {
      throw new Error('broken surface');
    });
    d.subscribe((e) => heard.push(e.kind));
    d.opened({ conversationId: 'c', turnId: 't', messageId: null, request: request('r'), session: session().s });
    expect(heard).toEqual(['opened']);
  });
});
