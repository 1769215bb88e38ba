/**
 * Stopping a conversation's turn, the one way it is done, whoever asks (/stop, the page's Stop, a
 * card's Stop button): the running turn is interrupted, what waits in line and what was steered but
 * not taken in end as stopped, the session survives. Messages sent before the stop are ended by it.
 */
import type { Store } from '../../store/store.js';
import type { MessageRow } from '../../store/types.js';
import type { Conversations } from '../conversations/conversations.js';
import type { Replies } from '../replies/replies.js';
import { describeTurn } from '../steps/describe.js';
import type { StepLog } from '../steps/step-log.js';

export interface StopResult {
  /** A turn was running when the stop came (the page's Stop says so). */
  wasRunning: boolean;
  /** The agent had a turn to interrupt. */
  interrupted: boolean;
  /** What the person is told. */
  reply: string;
  /** Messages that will not run (they get the ⏹ ack). */
  dropped: MessageRow[];
  /** The stopped turn's inputs, as they were when it was stopped. */
  turnInputs: MessageRow[];
}

export class Stopper {
  constructor(private readonly d: { store: Store; conversations: Conversations; steps: StepLog; replies: Replies }) {}

  /** Stops what runs and waits; sentAt is the stop's cutoff. */
  async stop(conversationId: string, sentAt: number): Promise<StopResult> {
    const { store, steps, conversations } = this.d;
    const turn = steps.running(conversationId);
    const running = turn ? describeTurn(turn, (id) => store.message(id)?.text) : undefined;
    const lane = conversations.lane(conversationId);
    if (turn) steps.stopAsked(turn.id);
    const { interrupted, dropped } = await lane.stop('stopped by /stop', sentAt);
    lane.pump();
    const parts = [
      interrupted ? `⏹ Stopped the running turn${running ? ` (${running})` : ''}.` : '⏹ Nothing was running.',
    ];
    if (dropped.length) parts.push(`${dropped.length} waiting message(s) will not run.`);
    parts.push('The session is kept.');
    const turnInputs = (turn?.inputIds ?? []).map((id) => store.message(id)).filter((r): r is MessageRow => !!r);
    return { wasRunning: !!turn, interrupted, reply: parts.join(' '), dropped, turnInputs };
  }

  /**
   * A stop without a message of its own (a Stop button): the dropped messages get their ⏹, and the
   * notice answers the stopped turn's first message (or the first it dropped), so it shows beside them.
   */
  async stopFromButton(conversationId: string): Promise<StopResult> {
    const r = await this.stop(conversationId, Date.now());
    for (const row of r.dropped) this.d.replies.ack(row, 'stopped');
    const answers = r.turnInputs.length ? r.turnInputs.slice(0, 1) : r.dropped.slice(0, 1);
    this.d.replies.send(conversationId, 'notice', r.reply, answers);
    return r;
  }
}
