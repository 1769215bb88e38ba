/**
 * A notification's button pressed on a device (POST /api/push/action from the service worker): its
 * token says what it may do (action-tokens.ts). It counts only while the device's subscription is
 * still there (unsubscribing revokes its buttons), and it goes through the same doors as the page
 * and the chats: the desk answers a request once (a second answer finds it gone) and judges the answer
 * as given from a lock screen, and a Stop runs the one stop (commands/stop.ts), for the notification's
 * own turn only.
 */
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import type { StopResult } from '../commands/stop.js';
import type { PermissionDesk } from '../permissions/desk.js';
import type { RefusalCode } from '../permissions/rules.js';
import type { StepLog } from '../steps/step-log.js';
import type { ActionTokens } from './action-tokens.js';

/** Who answered, as the step and the chats show it. */
export const BY_NOTIFICATION = 'web:owner (notification)';

export type ActionOutcome =
  | { ok: true; text: string }
  /** invalid: not a token of this gateway, expired, or its device unsubscribed; gone: nothing left to do. */
  | { ok: false; why: 'invalid' | 'gone'; text: string }
  /** The desk's rules refused the answer (its code): the request still waits. */
  | { ok: false; why: 'refused'; code: RefusalCode; text: string };

export interface PushActionsDeps {
  tokens: ActionTokens;
  store: Store;
  desk: PermissionDesk;
  steps: StepLog;
  stop(conversationId: string): Promise<StopResult>;
  log: Logger;
}

export class PushActions {
  constructor(private readonly d: PushActionsDeps) {}

  act(token: string): ActionOutcome {
    const { tokens, store, desk, steps, log } = this.d;
    const claim = tokens.verify(token);
    if (!claim || !store.push.get(claim.sub))
      return {
        ok: false,
        why: 'invalid',
        text: 'This notification’s button is no longer valid (expired, or notifications were turned off). Open Rudder.',
      };
    const { conversationId } = claim;
    if (claim.do === 'answer') {
      const r = desk.answer(conversationId, claim.requestId, claim.optionId, BY_NOTIFICATION, 'notification');
      log.info({ conversationId, ok: r.ok, optionId: claim.optionId }, 'permission answered from a notification');
      if (r.ok) return { ok: true, text: `${r.label}: sent to the agent.` };
      if (r.reason === 'refused') return { ok: false, why: 'refused', code: r.code, text: r.text };
      return { ok: false, why: 'gone', text: 'This request is no longer waiting: it was answered, or its turn ended.' };
    }
    if (steps.view(claim.turnId)?.status !== 'running')
      return { ok: false, why: 'gone', text: 'That turn already ended.' };
    log.info({ conversationId, turnId: claim.turnId }, 'stopping a turn from a notification');
    // The stop runs on its own: the service worker gets its answer at once, an interrupt may take longer.
    void this.d
      .stop(conversationId)
      .catch((err: unknown) =>
        log.error({ conversationId, err: (err as Error).message }, 'a notification’s Stop could not stop the turn'),
      );
    return { ok: true, text: '⏹ Stopping the turn.' };
  }
}
