/**
 * progress.text "messages": a text block the agent wrote between tools is also sent as a message
 * of its own, once a later step shows it was not the reply. Through the outbox, so each is sent
 * once and before the reply, which is never one turn behind.
 */
import type { TurnView } from '../steps/types.js';

export class IntermediateTexts {
  /** Step indexes already sent, per running turn. */
  private readonly sent = new Map<string, Set<number>>();

  constructor(private readonly send: (conversationId: string, text: string, inputIds: string[]) => void) {}

  seen(turn: TurnView): void {
    let sent = this.sent.get(turn.id);
    const last = turn.steps.length - 1;
    for (const s of turn.steps) {
      if (s.kind !== 'text' || s.final || s.partial || s.index >= last || sent?.has(s.index)) continue;
      if (!sent) this.sent.set(turn.id, (sent = new Set()));
      sent.add(s.index);
      this.send(turn.conversationId, s.text, turn.inputIds.slice(0, 1));
    }
    if (turn.status !== 'running') this.sent.delete(turn.id);
  }
}
