/**
 * A button press: the same door as messages for access control. Only the conversation's owners
 * may press (like commands); a permission button answers its request at most once; a card's Stop
 * runs /stop, for that card's turn only.
 */
import type { InboundPress, PressResult } from '../../channels/channel.js';
import { runCommand } from '../commands.js';
import type { GatewayCore } from '../core.js';
import { conversationIdOf } from '../intake.js';
import { parseButton } from './settings.js';

/** Who pressed, as answers record it: "telegram:111 (Ann)", like a message's sender. */
function byOf(p: InboundPress): string {
  return `${p.channel}:${p.sender.id}${p.sender.name ? ` (${p.sender.name})` : ''}`;
}

export async function handlePress(core: GatewayCore, p: InboundPress): Promise<PressResult> {
  const conversationId = conversationIdOf(p.channel, p.conversationKey);
  if (!core.access.isOwner(p.channel, p.sender.id)) {
    core.log.info({ conversationId, sender: p.sender.id }, 'button press refused: not an owner');
    return { ok: false, text: 'Only the owner can answer this.' };
  }
  const action = parseButton(p.data);
  if (!action) return { ok: false, text: 'This button is not one of Rudder’s.' };
  if (action.kind === 'permission') {
    const r = core.prompts.press(conversationId, action.ref, action.number, byOf(p));
    core.log.info({ conversationId, ok: r.ok, by: byOf(p) }, 'permission button pressed');
    return r;
  }
  const card = core.progress?.cardOf(action.ref);
  if (!card || card.conversationId !== conversationId) return { ok: false, text: 'That card is no longer live.' };
  if (!card.running || core.lane(conversationId).session()?.currentTurn()?.id !== card.turnId)
    return { ok: false, text: 'That turn already ended.' };
  // The stop runs on its own: a platform wants its press answered within seconds, an interrupt may take longer.
  core.log.info({ conversationId, by: byOf(p) }, 'stopping a turn from its progress card');
  void runCommand({ name: 'stop', args: '' }, core.commandContext(conversationId, Date.now(), byOf(p))).then(
    (outcome) => {
      for (const r of outcome.stopped ?? []) core.ack(r, 'stopped');
      core.send(conversationId, 'notice', outcome.reply, []);
    },
    (err: unknown) =>
      core.log.error({ conversationId, err: (err as Error).message }, 'the Stop button could not stop the turn'),
  );
  return { ok: true, text: '⏹ Stopping the turn.' };
}
