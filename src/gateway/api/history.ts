/**
 * A page of a web conversation's history: up to `limit` messages (by seq, oldest first) with
 * their acks, and the turns (with their steps) and delivered replies of the same stretch of time,
 * so a reload or a second device draws the same timeline. `before` (a message seq, the `before`
 * of the newer page) pages back; the newest page also carries the event id to follow on from. Acks and
 * review actions are read back from the event log parsed (stored-events.ts): a row that does not parse
 * is left out, and said so in the log.
 */
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import type { EventRow, MessageRow } from '../../store/types.js';
import type { AckData } from '../events.js';
import { ackData } from '../replies/replies.js';
import type { ReviewRecordView } from '../review/types.js';
import type { StepLog } from '../steps/step-log.js';
import { readEvents } from '../stored-events.js';
import type { HistoryPage } from './types.js';

type Deps = { store: Store; steps: StepLog; log: Logger };

/** The ack events of a message, each with when it was given. */
function loggedAcks(rows: EventRow[] | undefined, log: Logger): AckData[] {
  return readEvents(rows ?? [], log).flatMap((e) => (e.type === 'ack' ? [{ ...e.data, at: e.createdAt }] : []));
}

/** The review actions of a stretch of the history, each with its id in the event log and when it happened. */
function reviewsOf(rows: EventRow[], log: Logger): ReviewRecordView[] {
  return readEvents(rows, log).flatMap((e) =>
    e.type === 'review' && e.seq !== undefined ? [{ ...e.data, id: e.seq, at: e.createdAt }] : [],
  );
}

/** Acks as they were sent while the event log holds them; after it is pruned, what the state implies. */
function acksOf(m: MessageRow, logged: AckData[]): AckData[] {
  if (logged.length) return logged;
  if (m.state === 'refused') return [];
  const out = [ackData('received')];
  if (m.wasQueued) out.push(ackData('queued'));
  if (m.state === 'steered' || m.state === 'steering') out.push(ackData('steered'));
  if (m.state === 'stopped') out.push(ackData('stopped'));
  return out;
}

/** A voice note: said so, with its transcript once there is one. */
function voiceOf(m: MessageRow): { voice?: { transcript?: string } } {
  if (!m.extra.attachments?.some((a) => a.kind === 'voice' || a.kind === 'audio')) return {};
  return { voice: m.extra.transcript !== undefined ? { transcript: m.extra.transcript } : {} };
}

export function historyPage(d: Deps, conversationId: string, before: number | undefined, limit: number): HistoryPage {
  const { history } = d.store;
  const { rows, more } = history.messages(conversationId, before, limit);
  // The page's stretch of time: from its oldest message (from the start when there is nothing older) to the newer
  // page's oldest.
  const from = more && rows[0] ? rows[0].receivedAt : 0;
  const to =
    before === undefined
      ? Number.MAX_SAFE_INTEGER
      : (history.receivedAt(conversationId, before) ?? Number.MAX_SAFE_INTEGER);
  const acks = history.acks(rows.map((m) => m.id));
  return {
    messages: rows.map((m) => ({
      id: m.id,
      text: m.text,
      state: m.state,
      reason: m.reason,
      receivedAt: m.receivedAt,
      turnId: m.turnId,
      acks: acksOf(m, loggedAcks(acks.get(m.id), d.log)),
      ...voiceOf(m),
    })),
    // A chat's voice note repeats its reply's text: the page plays replies from the reply itself.
    replies: history.replies(conversationId, from, to).flatMap((o) =>
      o.kind === 'voice'
        ? []
        : [
            {
              id: o.id,
              kind: o.kind,
              text: o.text,
              messageIds: o.messageIds,
              fromFallback: o.fromFallback,
              at: o.deliveredAt ?? o.createdAt,
            },
          ],
    ),
    turns: d.steps.between(conversationId, from, to),
    reviews: reviewsOf(history.reviews(conversationId, from, to), d.log),
    more,
    before: rows[0]?.seq ?? null,
    ...(before === undefined ? { lastEventId: d.store.lastEventSeq(conversationId) } : {}),
  };
}
