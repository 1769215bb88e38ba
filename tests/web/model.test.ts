/**
 * The web app's new pure parts: how a command's answer is laid out, what a message's story says,
 * how a resend that the gateway calls a duplicate takes its real id, and which branch a
 * conversation is said to be on.
 */
import { describe, expect, it } from 'vitest';
import type { TurnView } from '../../src/gateway/steps/types.js';
import { messageHistory } from '../../web/src/message-history.js';
import type { ChatMessage } from '../../web/src/model.js';
import { noticeBlocks } from '../../web/src/notice-format.js';
import { emptyConversation } from '../../web/src/reduce.js';
import { addLocal, confirmLocal, failLocal } from '../../web/src/reduce-local.js';
import { buildTimeline } from '../../web/src/timeline.js';

describe('command answers', () => {
  it('lays "Key: value" runs out as a table, lists as monospace lines, the rest as text', () => {
    const status = ['Session: abc (claude-stream, idle)', 'Model: the CLI default', 'Queue mode: steer; waiting: 0'];
    expect(noticeBlocks(status.join('\n'))).toEqual([
      {
        kind: 'pairs',
        rows: [
          ['Session', 'abc (claude-stream, idle)'],
          ['Model', 'the CLI default'],
          ['Queue mode', 'steer; waiting: 0'],
        ],
      },
    ]);
    const project = [
      "Projects (→ this conversation's):",
      '→ site — /srv/site',
      '  api — /srv/api (default)',
      'Send /x.',
    ];
    expect(noticeBlocks(project.join('\n'))).toEqual([
      { kind: 'text', text: "Projects (→ this conversation's):" },
      { kind: 'lines', lines: ['→ site — /srv/site', '  api — /srv/api (default)'] },
      { kind: 'text', text: 'Send /x.' },
    ]);
    // One "Key: value" line alone is a sentence.
    expect(noticeBlocks('Note: this is all.')).toEqual([{ kind: 'text', text: 'Note: this is all.' }]);
  });
});

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

describe('a resend', () => {
  it('that the gateway had already (a lost answer) takes the real id, once', () => {
    let c = addLocal(emptyConversation('c'), 'web-1', 'hello', 5);
    c = failLocal(c, 'web-1', 'offline', 'not sent yet');
    c = confirmLocal(c, 'web-1', 'm9', 'duplicate');
    expect([...c.messages.values()].map((x) => [x.id, x.state, x.local, x.unsent])).toEqual([
      ['m9', 'accepted', undefined, undefined],
    ]);
  });
});
