/**
 * How events and history pages change a conversation on the page (web/src/reduce.ts; a replay after
 * a reconnect changes nothing), and the order the timeline draws from that state.
 */
import { describe, expect, it } from 'vitest';
import type { Step, TurnSummary } from '../../../src/gateway/steps/types.js';
import { applyEvent, type ConversationState, emptyConversation, mergePage } from '../../../web/src/reduce.js';
import { addLocal, confirmLocal } from '../../../web/src/reduce-local.js';
import { buildTimeline } from '../../../web/src/timeline.js';
import type { HistoryPage, StreamEvent } from '../../../web/src/types.js';

const C = 'web:c1';
const summary = (over: Partial<TurnSummary> = {}): TurnSummary => ({
  id: 't1',
  conversationId: C,
  status: 'running',
  startedAt: 1000,
  inputIds: ['m1'],
  stepCount: 0,
  ...over,
});
const base = { turnId: 't1', conversationId: C, at: 1100 };
const tool = (status: 'running' | 'ok', extra: Record<string, unknown> = {}): Step =>
  ({
    ...base,
    id: 't1:0',
    index: 0,
    kind: 'tool',
    toolUseId: 'u1',
    name: 'Bash',
    summary: 'sleep 2',
    input: { command: 'sleep 2' },
    status,
    ...extra,
  }) as Step;

let seq = 0;
/** An event as the stream delivers it; the data given here is the part a test is about. */
const ev = (type: StreamEvent['type'], data: Record<string, unknown>, persisted = true): StreamEvent =>
  ({ type, data: { messageId: null, at: Date.now(), ...data }, ...(persisted ? { id: ++seq } : {}) }) as StreamEvent;

function apply(c: ConversationState, events: StreamEvent[]): ConversationState {
  return events.reduce((x, e) => applyEvent(x, e), c);
}

function page(over: Partial<HistoryPage> = {}): HistoryPage {
  return { messages: [], replies: [], turns: [], reviews: [], more: false, before: null, lastEventId: 0, ...over };
}

const start = () =>
  mergePage(
    emptyConversation(C),
    page({
      messages: [
        {
          id: 'm1',
          text: 'run it',
          state: 'running',
          reason: null,
          receivedAt: 990,
          turnId: 't1',
          acks: [{ kind: 'received', emoji: '👀' }],
        },
      ],
    }),
    true,
  );

describe('conversation state', () => {
  it('a replay of events already applied changes nothing (a reconnect overlaps what was seen)', () => {
    seq = 0;
    const events = [
      ev('turn', { turn: summary() }),
      ev('step', { step: tool('running') }),
      ev('ack', { messageId: 'm2', kind: 'received', emoji: '👀' }),
      ev('step', { step: { ...base, id: 't1:1', index: 1, kind: 'steer', messageId: 'm2', text: 'also this' } }),
      ev('step', { step: tool('ok', { output: 'out', endedAt: 3100 }) }),
      ev('step', { step: { ...base, id: 't1:2', index: 2, kind: 'text', text: 'done', final: true } }),
      ev('turn', { turn: summary({ status: 'answered', endedAt: 3200, inputIds: ['m1', 'm2'], stepCount: 3 }) }),
      ev('reply', { outboxId: 'o1', kind: 'reply', text: 'done', messageIds: ['m1', 'm2'], at: 3300 }),
      ev('ack', { messageId: 'm1', kind: 'queued', emoji: '⏳' }),
    ];
    const once = apply(start(), events);
    const twice = apply(once, events);
    expect(buildTimeline(twice.messages, twice.turns, twice.replies)).toEqual(
      buildTimeline(once.messages, once.turns, once.replies),
    );
    expect([...twice.replies.keys()]).toEqual(['o1']);
    expect(twice.messages.get('m1')!.acks.map((a) => a.kind)).toEqual(['received', 'queued']);
    expect(twice.lastEventId).toBe(events.length);
  });

  it('keeps streamed text until a completed block covers it, including the next block already streaming', () => {
    let c = start();
    c = apply(c, [
      ev('turn', { turn: summary() }),
      ev('text', { turnId: 't1', delta: 'Hello ' }, false),
      ev('text', { turnId: 't1', delta: 'world. Next' }, false),
    ]);
    expect(c.streaming.get('t1')).toBe('Hello world. Next');
    c = applyEvent(c, ev('step', { step: { ...base, id: 't1:0', index: 0, kind: 'text', text: 'Hello world.' } }));
    expect(c.streaming.get('t1')).toBe(' Next');
    c = applyEvent(c, ev('turn', { turn: summary({ status: 'stopped', endedAt: 2000 }) }));
    expect(c.streaming.has('t1')).toBe(false);
  });

  it('a sent message takes its real id, and events that came first still apply', () => {
    let c = addLocal(start(), 'local-1', 'second', 2000);
    expect(buildTimeline(c.messages, c.turns, c.replies).waiting.map((m) => m.state)).toEqual(['sending']);
    c = confirmLocal(c, 'local-1', 'm2', 'queued');
    c = applyEvent(c, ev('ack', { messageId: 'm2', kind: 'queued', emoji: '⏳', note: 'queued (1 waiting)' }));
    const t = buildTimeline(c.messages, c.turns, c.replies);
    expect(t.waiting.map((m) => [m.id, m.state, m.acks.at(-1)?.note])).toEqual([
      ['m2', 'queued', 'queued (1 waiting)'],
    ]);
    c = applyEvent(c, ev('message', { messageId: 'm2', state: 'withdrawn' }));
    expect(buildTimeline(c.messages, c.turns, c.replies).waiting).toEqual([]);
  });

  it('merges an older page without doubling what it already holds, and pages on from its cursor', () => {
    const newest = page({
      messages: [{ id: 'm5', text: 'five', state: 'answered', reason: null, receivedAt: 5000, turnId: null, acks: [] }],
      more: true,
      before: 5,
      lastEventId: 40,
    });
    const older = page({
      messages: [{ id: 'm4', text: 'four', state: 'answered', reason: null, receivedAt: 4000, turnId: null, acks: [] }],
      more: false,
      before: 4,
    });
    let c = mergePage(emptyConversation(C), newest, true);
    expect([c.more, c.before, c.lastEventId]).toEqual([true, 5, 40]);
    c = mergePage(c, older, false);
    c = mergePage(c, older, false);
    expect([...c.messages.keys()].sort()).toEqual(['m4', 'm5']);
    expect([c.more, c.before, c.lastEventId]).toEqual([false, 4, 40]);
    // A refetch of the newest page (a message from another device) keeps the cursor.
    c = mergePage(c, newest, true);
    expect([c.more, c.before]).toEqual([false, 4]);
  });
});

describe('timeline order', () => {
  it('draws each message, then its turn with the steer inside and the reply attached; commands answered apart', () => {
    let c = start();
    c = mergePage(
      c,
      page({
        messages: [
          { id: 'm2', text: 'also this', state: 'steered', reason: null, receivedAt: 1500, turnId: 't1', acks: [] },
          { id: 'm3', text: '/help', state: 'command', reason: null, receivedAt: 4000, turnId: null, acks: [] },
          { id: 'm4', text: 'later', state: 'queued', reason: null, receivedAt: 4100, turnId: null, acks: [] },
        ],
        turns: [
          {
            ...summary({ status: 'answered', inputIds: ['m1', 'm2'] }),
            steps: [tool('ok'), { ...base, id: 't1:1', index: 1, kind: 'steer', messageId: 'm2', text: 'also this' }],
          },
        ],
        replies: [
          { id: 'o1', kind: 'reply', text: 'done', messageIds: ['m1', 'm2'], fromFallback: false, at: 3000 },
          { id: 'o2', kind: 'notice', text: 'Commands: …', messageIds: ['m3'], fromFallback: false, at: 4001 },
        ],
      }),
      true,
    );
    const t = buildTimeline(c.messages, c.turns, c.replies);
    expect(t.entries.map((e) => e.key)).toEqual(['m:m1', 't:t1', 'm:m3', 'r:o2']);
    expect(t.entries[1]!.kind === 'turn' && t.entries[1]!.replies.map((r) => r.id)).toEqual(['o1']);
    expect(t.waiting.map((m) => m.id)).toEqual(['m4']);
    expect(t.running).toBeUndefined();
  });
});
