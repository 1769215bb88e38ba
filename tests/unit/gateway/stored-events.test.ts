/**
 * Stored events read back parsed, never cast (src/gateway/stored-events.ts, event-schemas.ts): every
 * kind written to a real SQLite event log comes back as it was written; a row in a shape since changed,
 * damaged, or of an unknown kind is skipped with one log line naming its seq and kind, whichever way it
 * is read (the event stream's replay, the bus, a history page).
 */
import path from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { historyPage } from '../../../src/gateway/api/history.js';
import { type BusEvent, EventBus } from '../../../src/gateway/bus.js';
import type { EventDataOf, EventType } from '../../../src/gateway/events.js';
import { PermissionDesk } from '../../../src/gateway/permissions/desk.js';
import { StepLog } from '../../../src/gateway/steps/step-log.js';
import { eventsAfter, readEvent, readEvents } from '../../../src/gateway/stored-events.js';
import { Store } from '../../../src/store/store.js';
import { tempDir } from '../../support/claude-rig.js';

const C = 'web:c';
const base = { turnId: 't1', conversationId: C, at: 1000 };

/** One event of each kind, with every optional field a page may get. */
const SAMPLES: { [K in EventType]: EventDataOf[K][] } = {
  ack: [{ kind: 'queued', emoji: '📥', note: 'behind 1' }],
  text: [{ delta: 'hel', turnId: 't1' }],
  reply: [{ text: 'done', kind: 'reply', messageIds: ['m1'], outboxId: 'o1', fromFallback: false }],
  permission: [
    {
      requestId: 'r1',
      toolName: 'Bash',
      input: { command: 'ls', nested: { a: [1, 2] } },
      description: 'List',
      options: [
        { id: 'accept', label: 'Yes', kind: 'allow' },
        { id: 'accept-session', label: 'Yes, always', effect: 'later ones too', kind: 'allow' },
      ],
    },
    { requestId: 'r1', resolved: 'accept', by: 'web:owner', delivered: true },
    { requestId: 'r2', withdrawn: true },
  ],
  error: [{ code: 'AGENT_CRASHED', message: 'died', messageIds: ['m1'] }],
  status: [
    { state: 'tool', tool: 'Bash', turnId: 't1', input: 'ls' },
    { state: 'agent', message: 'retrying', turnId: 't1', key: 'retry' },
    { state: 'connected', lastEventId: 4 },
  ],
  step: [
    { step: { ...base, id: 't1:0', index: 0, kind: 'text', text: 'hi', partial: true, final: false } },
    {
      step: {
        ...base,
        id: 't1:1',
        index: 1,
        kind: 'tool',
        toolUseId: 'tu1',
        name: 'Bash',
        summary: 'ls',
        input: { command: 'ls' },
        status: 'ok',
        output: 'a\nb',
        outputTruncated: true,
        endedAt: 1200,
      },
    },
    { step: { ...base, id: 't1:2', index: 2, kind: 'steer', messageId: 'm2', text: 'also b' } },
    {
      step: {
        ...base,
        id: 't1:3',
        index: 3,
        kind: 'permission',
        requestId: 'r1',
        toolName: 'Bash',
        summary: 'rm x',
        input: { command: 'rm x' },
        inputCut: true,
        options: [{ id: 'deny', label: 'Deny' }],
        status: 'answered',
        answer: { optionId: 'deny', label: 'Deny', by: 'telegram:1 (Ann)' },
        endedAt: 1300,
      },
    },
    { step: { ...base, id: 't1:4', index: 4, kind: 'notice', code: 'rate-limited', text: 'waits', key: 'k' } },
  ],
  turn: [
    {
      turn: {
        id: 't1',
        conversationId: C,
        status: 'failed',
        startedAt: 1000,
        endedAt: 2000,
        inputIds: ['m1'],
        error: { code: 'AGENT_CRASHED', message: 'died' },
        stepCount: 5,
        usage: {
          inputTokens: 1,
          outputTokens: 2,
          cacheReadTokens: 3,
          cacheCreationTokens: 4,
          costUsd: null,
          models: {
            sonnet: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheCreationTokens: 4, costUsd: 0.1 },
          },
          durationMs: 900,
        },
      },
    },
  ],
  message: [{ state: 'withdrawn', text: 'x', edited: true, transcript: 'said x' }],
  review: [
    {
      action: 'merge',
      ok: true,
      by: 'web:owner',
      summary: 'Merged',
      result: { kind: 'fast-forward', branch: 'b', base: 'main', from: '1', to: '2', commits: 1 },
    },
    {
      action: 'merge',
      ok: false,
      by: 'web:owner',
      summary: 'Conflict',
      error: { code: 'REVIEW_MERGE_FAILED', message: 'no' },
      result: { kind: 'conflict', branch: 'b', base: 'main', files: ['a.ts'], clean: true },
    },
    { action: 'commit', ok: true, by: 'x', summary: 's', result: { branch: 'b', sha: 'abc', summary: 's', files: 2 } },
    {
      action: 'push',
      ok: true,
      by: 'x',
      summary: 's',
      result: { remote: 'origin', url: 'u', branch: 'b', kind: 'created', head: 'abc' },
    },
    {
      action: 'pull-request',
      ok: true,
      by: 'x',
      summary: 's',
      result: { opened: true, url: 'u', branch: 'b', base: 'm' },
    },
    {
      action: 'pull-request',
      ok: false,
      by: 'x',
      summary: 's',
      result: { opened: false, code: 'REVIEW_GH_MISSING', message: 'install gh' },
    },
    { action: 'discard', ok: true, by: 'x', summary: 's', result: { removed: 2, remaining: 0, files: ['a', 'b'] } },
  ],
};

let store: Store | undefined;
let file = '';
afterEach(async () => {
  await store?.close();
  store = undefined;
});

function open(): Store {
  file = path.join(tempDir('stored-events'), 'rudder.db');
  store = new Store(file);
  store.ensureConversation(C, 'web', 'c');
  return store;
}

/** A logger whose lines the test reads. */
function recordingLog() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

/** Overwrites a stored row's data with text as it is (what a damaged or hand-edited row holds). */
function rewrite(seq: number, data: string): void {
  const db = new Database(file);
  db.prepare('UPDATE events SET data = ? WHERE seq = ?').run(data, seq);
  db.close();
}

describe('stored events', () => {
  it('every kind round-trips through the event log as it was written', () => {
    const s = open();
    const written = (Object.keys(SAMPLES) as EventType[]).flatMap((type) =>
      SAMPLES[type].map((data) => ({ type, data })),
    );
    for (const w of written) s.appendEvent(C, w.type, 'm1', w.data);
    const { log, lines } = recordingLog();
    const read = readEvents(s.eventsSince(C, 0, 1000), log);
    expect(read.map((e) => ({ type: e.type, data: e.data }))).toEqual(written);
    expect(read.every((e) => e.messageId === 'm1' && typeof e.seq === 'number')).toBe(true);
    expect(lines).toEqual([]);
  });

  it('leaves out what a page must not get typed as today: keys it does not know', () => {
    const s = open();
    s.appendEvent(C, 'ack', 'm1', { kind: 'received', emoji: '👀', secretOfAnOldVersion: 1 });
    const r = readEvent(s.eventsSince(C, 0)[0]!);
    expect(r).toMatchObject({ ok: true, event: { type: 'ack', data: { kind: 'received', emoji: '👀' } } });
    expect(r.ok && 'secretOfAnOldVersion' in r.event.data).toBe(false);
  });

  it('skips an old, damaged or unknown row with one log line naming its seq and kind', () => {
    const s = open();
    const good = s.appendEvent(C, 'reply', null, SAMPLES.reply[0]!);
    // A permission event of an older shape (a boolean answer, before option ids).
    const old = s.appendEvent(C, 'permission', null, { requestId: 'r1', allow: true });
    const stepWithoutIndex = s.appendEvent(C, 'step', null, { step: { kind: 'text', text: 'hi', turnId: 't' } });
    const damaged = s.appendEvent(C, 'error', null, SAMPLES.error[0]!);
    rewrite(damaged.seq, '{not json');
    const unknown = s.appendEvent(C, 'ack', null, SAMPLES.ack[0]!);
    const db = new Database(file);
    db.prepare("UPDATE events SET type = 'presence' WHERE seq = ?").run(unknown.seq);
    db.close();
    const { log, lines } = recordingLog();
    const read = readEvents(s.eventsSince(C, 0), log);
    expect(read.map((e) => e.seq)).toEqual([good.seq]);
    expect(lines.map((l) => [l.seq, l.kind, l.msg])).toEqual([
      [old.seq, 'permission', 'a stored event does not have the shape of its kind; skipped'],
      [stepWithoutIndex.seq, 'step', 'a stored event does not have the shape of its kind; skipped'],
      [damaged.seq, 'error', 'a stored event does not have the shape of its kind; skipped'],
      [unknown.seq, 'presence', 'a stored event does not have the shape of its kind; skipped'],
    ]);
    expect(lines[3]!.fields).toBe('unknown kind');
  });

  it("a replay page is full unless the log has no more: skipped rows do not end the stream's paging early", () => {
    const s = open();
    const seqs: number[] = [];
    for (let i = 0; i < 7; i++) {
      const bad = i % 2 === 0;
      seqs.push(s.appendEvent(C, 'ack', `m${i}`, bad ? { kind: 'gone' } : { kind: 'received', emoji: '👀' }).seq);
    }
    const { log, lines } = recordingLog();
    const page = eventsAfter(s, C, 0, 2, log);
    expect(page.map((e) => e.messageId)).toEqual(['m1', 'm3']);
    const rest = eventsAfter(s, C, page.at(-1)!.seq!, 2, log);
    expect(rest.map((e) => e.messageId)).toEqual(['m5']);
    expect(lines.map((l) => l.seq)).toEqual([seqs[0], seqs[2], seqs[4], seqs[6]]);
  });

  it('the bus publishes a just-logged row parsed, and never one that does not parse', () => {
    const s = open();
    const { log, lines } = recordingLog();
    const bus = new EventBus(s, log);
    const heard: BusEvent[] = [];
    bus.subscribe(C, (e) => heard.push(e));
    bus.publish(s.appendEvent(C, 'ack', 'm1', { kind: 'steered', emoji: '↪️' }));
    bus.publish(s.appendEvent(C, 'ack', 'm2', { kind: 'steered' }));
    expect(heard.map((e) => [e.type, e.messageId, e.data])).toEqual([['ack', 'm1', { kind: 'steered', emoji: '↪️' }]]);
    expect(lines.map((l) => l.kind)).toEqual(['ack']);
  });

  it("a history page's acks and review actions are parsed; an ack that does not parse falls back to the state", () => {
    const s = open();
    const { row } = s.insertMessage({
      conversationId: C,
      channel: 'web',
      platformMessageId: 'p1',
      senderId: 'owner',
      text: 'hi',
      state: 'answered',
    });
    const ack = s.appendEvent(C, 'ack', row.id, { kind: 'received', emoji: '👀' });
    rewrite(ack.seq, JSON.stringify({ kind: 'received' }));
    const review = s.appendEvent(C, 'review', null, SAMPLES.review[0]!);
    s.appendEvent(C, 'review', null, { action: 'rebase', ok: true });
    const { log, lines } = recordingLog();
    const steps = new StepLog(s, new EventBus(s, log), log, new PermissionDesk(log));
    const page = historyPage({ store: s, steps, log }, C, undefined, 50);
    expect(page.messages[0]!.acks).toEqual([{ kind: 'received', emoji: '👀' }]);
    expect(page.reviews).toEqual([{ ...SAMPLES.review[0], id: review.seq, at: review.createdAt }]);
    expect(lines.map((l) => [l.seq, l.kind])).toEqual([
      [ack.seq, 'ack'],
      [review.seq + 1, 'review'],
    ]);
  });

  it("a turn's stored steps are parsed: one of an older shape is left out, logged once with its place", () => {
    const s = open();
    s.turnStarted('t1', C, ['m1'], null);
    const steps = SAMPLES.step.map((e) => e.step);
    for (const st of steps) s.putStep(st);
    // A tool step as an older release might have written it: no status yet.
    s.putStep({ ...base, id: 't1:5', index: 5, kind: 'tool', toolUseId: 'tu2', name: 'Read' } as never);
    const { log, lines } = recordingLog();
    const stepLog = new StepLog(s, new EventBus(s, log), log, new PermissionDesk(log));
    const turn = stepLog.history(C).turns[0]!;
    expect(turn.steps).toEqual(steps);
    expect(lines.map((l) => [l.turnId, l.position, l.kind, l.msg])).toEqual([
      ['t1', 5, 'tool', 'a stored step does not have the shape of its kind; skipped'],
    ]);
  });
});
