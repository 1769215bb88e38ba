/** What a message's story says on the page (web/src/message-history.ts). */
import { describe, expect, it } from 'vitest';
import type { TurnView } from '../../../src/gateway/steps/types.js';
import { messageHistory } from '../../../web/src/message-history.js';
import type { ChatMessage } from '../../../web/src/model.js';
import { emptyConversation } from '../../../web/src/reduce.js';
import { addLocal, failLocal } from '../../../web/src/reduce-local.js';
import { buildTimeline } from '../../../web/src/timeline.js';

describe("a message's story", () => {
  const m: ChatMessage = {
    id: 'm2',
    text: 'also this',
    state: 'steered',
    reason: null,
    receivedAt: 1000,
    acks: [
      { kind: 'received', emoji: '👀' },
      { kind: 'steered', emoji: '➡️', note: 'also this' },
    ],
  };
  const turn = {
    id: 't1',
    conversationId: 'web:c',
    status: 'answered',
    startedAt: 900,
    endedAt: 3000,
    inputIds: ['m1', 'm2'],
    stepCount: 1,
    steps: [
      {
        id: 't1:0',
        turnId: 't1',
        conversationId: 'web:c',
        index: 0,
        at: 2000,
        kind: 'steer',
        messageId: 'm2',
        text: 'also this',
      },
    ],
  } as TurnView;

  it('keeps "handed to the running turn" after it was taken in, in order, without repeating the text', () => {
    const lines = messageHistory(
      m,
      [turn],
      [{ id: 'o1', kind: 'reply', text: 'done', messageIds: ['m1', 'm2'], fromFallback: false, at: 3100 }],
    );
    expect(lines.map((l) => l.text)).toEqual([
      'Received by the gateway',
      'Handed to the running turn: the agent takes it in at its next step',
      'Taken in by the agent mid-turn',
      'Answered',
    ]);
    expect(lines.map((l) => l.at)).toEqual([1000, undefined, 2000, 3100]);
  });

  it('says what an unsent one waits for', () => {
    let c = addLocal(emptyConversation('c'), 'web-1', 'hi', 5);
    c = failLocal(c, 'web-1', 'failed', 'The text is over 100 KB.');
    expect(messageHistory(c.messages.get('web-1')!, [], []).map((l) => l.text)).toEqual([
      'The gateway did not accept it: The text is over 100 KB.',
    ]);
    // It waits at the end of the timeline, where Retry, Edit and Delete are.
    expect(buildTimeline(c.messages, c.turns, c.replies).waiting.map((x) => x.id)).toEqual(['web-1']);
  });
});
