/**
 * The page's pure parts behind "what the page shows is what happened, in order": a turn's items in
 * the order they happened (a permission request inside its tool call, notices among the steps,
 * "Done" after the reply and before what came after the end); a steer that runs next; times the
 * gateway wrote in UTC in the device's own; a command's Markdown kept as Markdown; the Changes
 * view's summary.
 */
import { describe, expect, it } from 'vitest';
import type { PermissionStep, Step, ToolStep, TurnView } from '../../../src/gateway/steps/types.js';
import { clock, localTimes } from '../../../web/src/format.js';
import { runsNext, waitText } from '../../../web/src/message-history.js';
import type { ChatMessage } from '../../../web/src/model.js';
import { noticeBlocks } from '../../../web/src/notice-format.js';
import { applyEvent, emptyConversation } from '../../../web/src/reduce.js';
import { countsText } from '../../../web/src/review-model.js';
import { turnItems } from '../../../web/src/timeline.js';
import type { ChangesBody, Reply } from '../../../web/src/types.js';

const base = { turnId: 't', conversationId: 'web:c' };
const tool = (index: number, at: number, extra: Partial<ToolStep> = {}): ToolStep => ({
  ...base,
  id: `t:${index}`,
  index,
  at,
  kind: 'tool',
  toolUseId: `u${index}`,
  name: 'Bash',
  summary: 'rm -rf build',
  input: { command: 'rm -rf build' },
  status: 'ok',
  ...extra,
});
const permission = (index: number, at: number): PermissionStep => ({
  ...base,
  id: `t:${index}`,
  index,
  at,
  kind: 'permission',
  requestId: `r${index}`,
  toolName: 'Bash',
  summary: 'rm -rf build',
  input: { command: 'rm -rf build' },
  options: [],
  status: 'answered',
});
const reply = (id: string, kind: 'reply' | 'notice', at: number): Reply => ({
  id,
  kind,
  text: id,
  messageIds: ['m1'],
  fromFallback: false,
  at,
});
const turn = (steps: Step[], extra: Partial<TurnView> = {}): TurnView => ({
  id: 't',
  conversationId: 'web:c',
  status: 'answered',
  startedAt: 0,
  endedAt: 100,
  inputIds: ['m1'],
  stepCount: steps.length,
  steps,
  ...extra,
});
const keys = (items: ReturnType<typeof turnItems>) =>
  items.map((i) =>
    i.kind === 'step' ? `${i.step.kind}${i.permission ? '+permission' : ''}` : i.kind === 'reply' ? i.reply.id : i.kind,
  );

describe("a turn's items in the order they happened", () => {
  it('puts a permission request in its tool call, notices among the steps, Done after the reply', () => {
    const notice: Step = {
      ...base,
      id: 't:2',
      index: 2,
      at: 30,
      kind: 'notice',
      code: 'agent-status',
      text: 'retrying',
    };
    const t = turn([tool(0, 10), permission(1, 11), notice, tool(3, 40, { summary: 'ls' })]);
    const items = turnItems(t, [
      reply('back', 'notice', 35),
      reply('answer', 'reply', 101),
      reply('stop', 'notice', 102),
    ]);
    expect(keys(items)).toEqual(['tool+permission', 'notice', 'back', 'tool', 'answer', 'status', 'stop']);
  });

  it('leaves a permission request whose tool call is not before it where it is', () => {
    const t = turn([permission(0, 5), tool(1, 10, { summary: 'other' })], { status: 'running', endedAt: undefined });
    expect(keys(turnItems(t, []))).toEqual(['permission', 'tool', 'streaming', 'status']);
  });
});

describe('a message handed to the running turn', () => {
  const steering = (acks: ChatMessage['acks']): ChatMessage => ({
    id: 'm2',
    text: 'and this',
    state: 'steering',
    reason: null,
    receivedAt: 1,
    acks,
  });
  it('runs next while the last word is a queued ack after the steered one, and says so', () => {
    const handed = steering([
      { kind: 'received', emoji: '👀', at: 1 },
      { kind: 'steered', emoji: '➡️', at: 2 },
    ]);
    expect(runsNext(handed)).toBe(false);
    expect(waitText(handed)).toMatch(/^➡️ Handed to the running turn/);
    const next = steering([...handed.acks, { kind: 'queued', emoji: '⏳', note: 'runs next', at: 3 }]);
    expect(runsNext(next)).toBe(true);
    expect(waitText(next)).toMatch(/^⏭ Runs next/);
    expect(runsNext(steering([...next.acks, { kind: 'steered', emoji: '➡️', at: 4 }]))).toBe(false);
  });

  it('stays handed over on a queued ack (it cannot be withdrawn), unless it was never handed over', () => {
    let c = emptyConversation('web:c');
    c = { ...c, messages: new Map([['m2', steering([{ kind: 'steered', emoji: '➡️', at: 2 }])]]) };
    const ack = (kind: 'queued' | 'steered', at: number) =>
      ({ type: 'ack', data: { messageId: 'm2', kind, emoji: '⏳', note: 'runs next', at } }) as const;
    c = applyEvent(c, ack('queued', 3));
    expect(c.messages.get('m2')!.state).toBe('steering');
    c = applyEvent(c, ack('steered', 4));
    // The same kind again later is a new ack (the mark changed back); the same event again is not.
    c = applyEvent(c, ack('steered', 4));
    expect(c.messages.get('m2')!.acks.map((a) => a.kind)).toEqual(['steered', 'queued', 'steered']);
    let d = emptyConversation('web:c');
    d = { ...d, messages: new Map([['m3', { ...steering([]), id: 'm3' }]]) };
    d = applyEvent(d, { type: 'ack', data: { messageId: 'm3', kind: 'queued', emoji: '⏳', at: 5 } });
    expect(d.messages.get('m3')!.state).toBe('queued');
  });
});

describe('times the gateway wrote in UTC', () => {
  it('are shown as this device writes a time, the nearest such moment to when they were written', () => {
    const near = Date.UTC(2031, 0, 1, 23, 50);
    expect(localTimes('held until 00:10 UTC (estimated)', near)).toBe(
      `held until ${clock(Date.UTC(2031, 0, 2, 0, 10))} (estimated)`,
    );
    expect(localTimes('gpu (last seen 23:40:05 UTC)', near)).toBe(
      `gpu (last seen ${clock(Date.UTC(2031, 0, 1, 23, 40, 5))})`,
    );
    expect(localTimes('at 25:61 UTC, nothing', near)).toBe('at 25:61 UTC, nothing');
  });
});

describe("a command's answer", () => {
  it('keeps fenced blocks and tables as Markdown, between its text blocks', () => {
    const text = [
      'M a.txt +1 −1',
      '```diff',
      '@@ -1 +1 @@',
      '-a',
      '+b',
      '```',
      '| a | b |',
      '| - | - |',
      '| 1 | 2 |',
      'Done: yes',
    ];
    expect(noticeBlocks(text.join('\n'))).toEqual([
      { kind: 'text', text: 'M a.txt +1 −1' },
      { kind: 'markdown', text: '```diff\n@@ -1 +1 @@\n-a\n+b\n```' },
      { kind: 'markdown', text: '| a | b |\n| - | - |\n| 1 | 2 |' },
      { kind: 'text', text: 'Done: yes' },
    ]);
  });
});

describe("the Changes view's summary", () => {
  const body = (o: { ahead: number; behind: number; committed: number; open: number }): ChangesBody =>
    ({
      changes: {
        base: { name: 'main', ahead: o.ahead, behind: o.behind },
        totals: { files: o.committed + o.open, added: 1, deleted: 1 },
        sections: {
          committed: { files: Array(o.committed).fill({}), omitted: 0 },
          staged: { files: [], omitted: 0 },
          unstaged: { files: Array(o.open).fill({}), omitted: 0 },
          untracked: { files: [], omitted: 0 },
        },
      },
    }) as unknown as ChangesBody;
  it('says what is not committed, what is ahead or behind, and the files once', () => {
    expect(countsText(body({ ahead: 0, behind: 0, committed: 0, open: 3 }))).toBe('3 files not committed');
    expect(countsText(body({ ahead: 1, behind: 0, committed: 3, open: 0 }))).toBe(
      '1 commit ahead of main · 3 files changed',
    );
    expect(countsText(body({ ahead: 2, behind: 1, committed: 2, open: 1 }))).toBe(
      '2 commits ahead of main, 1 behind, 1 file not committed · 3 files changed',
    );
    expect(countsText(body({ ahead: 0, behind: 0, committed: 0, open: 0 }))).toBe('even with main');
  });
});
