/**
 * Every button press, routed where it enters (Intake.press), through the same door as messages for
 * access control: only the conversation's owners may press (like commands); a permission button
 * answers its request at most once (permissions/chat-prompts.ts); a card's Stop runs the one stop
 * (commands/stop.ts), for that card's turn only; a confirmation's button (/discard's) is taken at
 * most once (commands/confirm.ts).
 */
import type { InboundPress, PressResult } from '../../channels/channel.js';
import type { Logger } from '../../ops/logger.js';
import type { AccessControl } from '../../security/access.js';
import type { Confirmations } from '../commands/confirm.js';
import type { StopResult } from '../commands/stop.js';
import type { Conversations } from '../conversations/conversations.js';
import type { ChatPrompts } from '../permissions/chat-prompts.js';
import type { ProgressDriver } from '../surfaces/driver.js';

/**
 * Button data: "p:<ref>:<option number>" answers a permission request, "s:<ref>" stops a card's turn,
 * "c:<ref>:y" or "c:<ref>:n" answers a confirmation.
 */
export type ButtonAction =
  | { kind: 'permission'; ref: string; number: number }
  | { kind: 'stop'; ref: string }
  | { kind: 'confirm'; ref: string; yes: boolean };

export function parseButton(data: string): ButtonAction | undefined {
  const p = /^p:([\w-]{1,24}):(\d{1,2})$/.exec(data);
  if (p) return { kind: 'permission', ref: p[1]!, number: Number(p[2]) };
  const c = /^c:([\w-]{1,24}):([yn])$/.exec(data);
  if (c) return { kind: 'confirm', ref: c[1]!, yes: c[2] === 'y' };
  const s = /^s:([\w-]{1,24})$/.exec(data);
  return s ? { kind: 'stop', ref: s[1]! } : undefined;
}

/** Who pressed, as answers record it: "telegram:111 (Ann)", like a message's sender. */
function byOf(p: InboundPress): string {
  return `${p.channel}:${p.sender.id}${p.sender.name ? ` (${p.sender.name})` : ''}`;
}

export interface PressesDeps {
  access: AccessControl;
  prompts: ChatPrompts;
  cards: ProgressDriver;
  confirms: Confirmations;
  conversations: Conversations;
  stop(conversationId: string): Promise<StopResult>;
  log: Logger;
}

export class Presses {
  constructor(private readonly d: PressesDeps) {}

  async press(p: InboundPress, conversationId: string): Promise<PressResult> {
    const { log } = this.d;
    if (!this.d.access.isOwner(p.channel, p.sender.id)) {
      log.info({ conversationId, sender: p.sender.id }, 'button press refused: not an owner');
      return { ok: false, text: 'Only the owner can answer this.' };
    }
    const action = parseButton(p.data);
    if (!action) return { ok: false, text: 'This button is not one of Rudder’s.' };
    if (action.kind === 'permission') {
      const r = this.d.prompts.press(conversationId, action.ref, action.number, byOf(p));
      log.info({ conversationId, ok: r.ok, by: byOf(p) }, 'permission button pressed');
      return r;
    }
    if (action.kind === 'confirm') {
      const r = this.d.confirms.press(conversationId, action.ref, action.yes, byOf(p));
      log.info({ conversationId, ok: r.ok, confirmed: action.yes, by: byOf(p) }, 'confirmation button pressed');
      return r;
    }
    const card = this.d.cards.cardOf(action.ref);
    if (!card || card.conversationId !== conversationId) return { ok: false, text: 'That card is no longer live.' };
    const current = this.d.conversations.lane(conversationId).session()?.currentTurn();
    if (!card.running || current?.id !== card.turnId) return { ok: false, text: 'That turn already ended.' };
    // The stop runs on its own: a platform wants its press answered within seconds, an interrupt may take longer.
    log.info({ conversationId, by: byOf(p) }, 'stopping a turn from its progress card');
    void this.d
      .stop(conversationId)
      .catch((err: unknown) =>
        log.error({ conversationId, err: (err as Error).message }, 'the Stop button could not stop the turn'),
      );
    return { ok: true, text: '⏹ Stopping the turn.' };
  }
}
