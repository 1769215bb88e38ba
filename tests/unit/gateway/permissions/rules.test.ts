/**
 * The desk's rules (src/gateway/permissions/rules.ts, surfaces.ts), held by PermissionDesk.answer for
 * every caller: an option the request did not offer is refused, and so is anything but a refusal from a
 * surface that did not show the input whole and plain. A refused answer never reaches the session and
 * leaves the request waiting.
 */
import { describe, expect, it } from 'vitest';
import type { AgentSession, PermissionAnswer, PermissionOption } from '../../../../src/agents/session.js';
import { NOTIFY_INPUT_LIMIT } from '../../../../src/gateway/notify/compose.js';
import { PermissionDesk } from '../../../../src/gateway/permissions/desk.js';
import { PROMPT_INPUT_LIMIT } from '../../../../src/gateway/permissions/prompt-text.js';
import { refusalOf } from '../../../../src/gateway/permissions/rules.js';
import type { AnswerSurface } from '../../../../src/gateway/permissions/surfaces.js';
import { STEP_LIMITS } from '../../../../src/gateway/steps/types.js';
import { silentLogger } from '../../../../src/ops/logger.js';

const CLAUDE: PermissionOption[] = [
  { id: 'allow', label: 'Allow' },
  { id: 'deny', label: 'Deny' },
];
const CODEX: PermissionOption[] = [
  { id: 'accept', label: 'Accept', kind: 'allow' },
  { id: 'network-0', label: 'Block network access to x.example', effect: 'remembered' },
  { id: 'decline', label: 'Decline', kind: 'deny' },
];
const SURFACES: AnswerSurface[] = ['page', 'chat', 'notification'];

const request = (input: Record<string, unknown>, options = CLAUDE) => ({
  requestId: 'r1',
  toolName: 'Bash',
  input,
  options,
});

/** A desk with one request open, whose session records what reaches it. */
function opened(input: Record<string, unknown>, options = CLAUDE) {
  const answers: PermissionAnswer[] = [];
  const session = {
    answerPermission: (_: string, a: PermissionAnswer) => (answers.push(a), true),
  } as unknown as AgentSession;
  const desk = new PermissionDesk(silentLogger());
  desk.opened({ conversationId: 'c', turnId: 't', messageId: null, request: request(input, options), session });
  return { desk, answers };
}

describe('the desk refuses an option the request did not offer', () => {
  it.each(SURFACES)('from the %s, and the agent gets nothing; the request still waits', (via) => {
    const { desk, answers } = opened({ command: 'ls' });
    const r = desk.answer('c', 'r1', 'allow-forever', 'x', via);
    expect(r).toEqual({
      ok: false,
      reason: 'refused',
      code: 'PERMISSION_NOT_OFFERED',
      text: `"allow-forever" is not one of this request's option ids.`,
    });
    expect(answers).toEqual([]);
    expect(desk.get('r1')).toBeDefined();
    expect(desk.answer('c', 'r1', 'allow', 'x', via)).toEqual({ ok: true, label: 'Allow' });
    expect(answers).toEqual([{ optionId: 'allow' }]);
  });

  it('an option id of another request (or another backend) is not offered by this one', () => {
    expect(refusalOf(request({ command: 'ls' }, CODEX), 'allow', 'page')?.code).toBe('PERMISSION_NOT_OFFERED');
    expect(refusalOf(request({ command: 'ls' }), 'accept', 'page')?.code).toBe('PERMISSION_NOT_OFFERED');
  });
});

describe('the desk lets a surface approve only what it showed whole and plain', () => {
  const allowFrom = (input: Record<string, unknown>) =>
    Object.fromEntries(SURFACES.map((via) => [via, refusalOf(request(input), 'allow', via)?.code ?? 'ok']));

  it('a short plain input: every surface', () => {
    expect(allowFrom({ command: 'ls -la' })).toEqual({ page: 'ok', chat: 'ok', notification: 'ok' });
  });

  it('a lock screen shows NOTIFY_INPUT_LIMIT characters, not one more', () => {
    expect(allowFrom({ command: 'x'.repeat(NOTIFY_INPUT_LIMIT) }).notification).toBe('ok');
    expect(allowFrom({ command: 'x'.repeat(NOTIFY_INPUT_LIMIT + 1) })).toEqual({
      page: 'ok',
      chat: 'ok',
      notification: 'PERMISSION_NOT_SHOWN_WHOLE',
    });
  });

  it('a chat shows PROMPT_INPUT_LIMIT characters; the page carries every field up to its own limit', () => {
    expect(allowFrom({ command: 'x'.repeat(PROMPT_INPUT_LIMIT + 1) })).toEqual({
      page: 'ok',
      chat: 'PERMISSION_NOT_SHOWN_WHOLE',
      notification: 'PERMISSION_NOT_SHOWN_WHOLE',
    });
    const past = allowFrom({ command: 'x'.repeat(STEP_LIMITS.permissionInputField + 1) });
    expect(past).toEqual({
      page: 'PERMISSION_NOT_SHOWN_WHOLE',
      chat: 'PERMISSION_NOT_SHOWN_WHOLE',
      notification: 'PERMISSION_NOT_SHOWN_WHOLE',
    });
  });

  it('characters that hide or reorder text: only the page, which draws them as escapes', () => {
    expect(allowFrom({ command: 'ls #\u202Ehidden' })).toEqual({
      page: 'ok',
      chat: 'PERMISSION_NOT_SHOWN_WHOLE',
      notification: 'PERMISSION_NOT_SHOWN_WHOLE',
    });
  });

  it('a refusal is taken from every surface, whatever was shown; anything else is judged as an approval', () => {
    const huge = { command: 'x'.repeat(STEP_LIMITS.permissionInputField + 1) };
    for (const via of SURFACES) {
      expect(refusalOf(request(huge), 'deny', via)).toBeUndefined();
      expect(refusalOf(request(huge, CODEX), 'decline', via)).toBeUndefined();
      expect(refusalOf(request(huge, CODEX), 'accept', via)?.code).toBe('PERMISSION_NOT_SHOWN_WHOLE');
      expect(refusalOf(request(huge, CODEX), 'network-0', via)?.code).toBe('PERMISSION_NOT_SHOWN_WHOLE');
    }
  });

  it("tells the person why, in the surface's words", () => {
    const long = request({ command: 'x'.repeat(PROMPT_INPUT_LIMIT + 1) });
    expect(refusalOf(long, 'allow', 'chat')?.text).toMatch(/too long to show whole in a chat/);
    expect(refusalOf(request({ command: 'ls #\u202E' }), 'allow', 'chat')?.text).toMatch(/hide or reorder text/);
    expect(refusalOf(long, 'allow', 'notification')?.text).toMatch(/too long for a notification/);
    const huge = request({ command: 'x'.repeat(STEP_LIMITS.permissionInputField + 1) });
    expect(refusalOf(huge, 'allow', 'page')?.text).toMatch(/too long to show, so it cannot be approved here/);
  });

  it('a refused approval leaves the request waiting for a refusal; unsaid, the surface is a lock screen', () => {
    const { desk, answers } = opened({ command: 'x'.repeat(NOTIFY_INPUT_LIMIT + 1) });
    expect(desk.answer('c', 'r1', 'allow', 'x')).toMatchObject({ ok: false, code: 'PERMISSION_NOT_SHOWN_WHOLE' });
    expect(answers).toEqual([]);
    expect(desk.answer('c', 'r1', 'deny', 'x', 'notification')).toEqual({ ok: true, label: 'Deny' });
    expect(answers).toEqual([{ optionId: 'deny' }]);
    expect(desk.count()).toBe(0);
  });
});
