/**
 * How a conversation's state changes: a history page merged in, one event applied. Pure functions
 * that return a new state (unchanged maps keep their identity, so views that did not change skip
 * rendering). Every event may arrive twice (a replay after a reconnect overlaps what was seen):
 * steps and turns replace by id, acks and replies are kept once.
 */
import type { ChatMessage, TimedAck } from './model.js';
import type {
  HistoryPage,
  MessageState,
  Reply,
  ReviewRecordView,
  Step,
  StreamEvent,
  TurnSummary,
  TurnView,
} from './types.js';

export interface ConversationState {
  id: string;
  messages: Map<string, ChatMessage>;
  turns: Map<string, TurnView>;
  replies: Map<string, Reply>;
  /** Review actions (commit, merge, ...) by their event id. */
  reviews: Map<number, ReviewRecordView>;
  /** Text streamed since each running turn's last completed block. */
  streaming: Map<string, string>;
  /** Older history exists; page back from `before`. */
  more: boolean;
  before: number | null;
  loaded: boolean;
  lastEventId: number;
}

export function emptyConversation(id: string): ConversationState {
  return {
    id,
    messages: new Map(),
    turns: new Map(),
    replies: new Map(),
    reviews: new Map(),
    streaming: new Map(),
    more: false,
    before: null,
    loaded: false,
    lastEventId: 0,
  };
}

const FINAL: MessageState[] = ['answered', 'steered', 'merged', 'refused', 'failed', 'stopped', 'withdrawn', 'command'];

/** An ack seen again (a replay) is kept once; the same kind again later (a steer's mark changing) is a new one. */
function withAck(m: ChatMessage, ack: TimedAck): ChatMessage {
  const seen = m.acks.some(
    (a) => a.kind === ack.kind && (a.at === undefined || ack.at === undefined || a.at === ack.at),
  );
  return seen ? m : { ...m, acks: [...m.acks, ack] };
}

/**
 * A queued ack does not take a message back into line once it runs, nor once it was handed to the running turn:
 * then it says the message runs next, as a turn of its own (it can no longer be withdrawn).
 */
const staysPut = (m: ChatMessage) =>
  m.state === 'running' || (m.state === 'steering' && m.acks.some((a) => a.kind === 'steered'));

/** A history page (newest, or an older one): what it holds replaces what we had for the same ids. */
export function mergePage(c: ConversationState, page: HistoryPage, newest: boolean): ConversationState {
  const messages = new Map(c.messages);
  for (const m of page.messages) {
    const had = messages.get(m.id);
    // A page's acks carry no time; the ones seen live keep theirs.
    const acks: TimedAck[] = m.acks.map((a) => ({ ...had?.acks.find((b) => b.kind === a.kind), ...a }));
    for (const a of had?.acks ?? []) if (!acks.some((b) => b.kind === a.kind)) acks.push(a);
    messages.set(m.id, {
      id: m.id,
      text: m.text,
      state: m.state,
      reason: m.reason,
      receivedAt: m.receivedAt,
      acks,
      ...(had?.seen ? { seen: had.seen } : {}),
      ...(m.voice ? { voice: m.voice } : {}),
    });
  }
  const turns = new Map(c.turns);
  for (const t of page.turns) turns.set(t.id, t);
  const replies = new Map(c.replies);
  for (const r of page.replies) replies.set(r.id, r);
  const reviews = page.reviews?.length ? new Map(c.reviews) : c.reviews;
  for (const r of page.reviews ?? []) reviews.set(r.id, r);
  const older = !newest || !c.loaded;
  return {
    ...c,
    messages,
    turns,
    replies,
    reviews,
    loaded: true,
    ...(older ? { more: page.more, before: page.before } : {}),
    ...(newest && page.lastEventId !== undefined ? { lastEventId: Math.max(c.lastEventId, page.lastEventId) } : {}),
  };
}

function setMessage(c: ConversationState, id: string, change: (m: ChatMessage) => ChatMessage): ConversationState {
  const m = c.messages.get(id);
  if (!m) return c;
  const next = change(m);
  if (next === m) return c;
  const messages = new Map(c.messages);
  messages.set(id, next);
  return { ...c, messages };
}

function putTurn(c: ConversationState, turn: TurnView): ConversationState {
  const turns = new Map(c.turns);
  turns.set(turn.id, turn);
  return { ...c, turns };
}

function placeholderTurn(c: ConversationState, id: string, at: number, inputId: string | null): TurnView {
  return {
    id,
    conversationId: c.id,
    status: 'running',
    startedAt: at,
    inputIds: inputId ? [inputId] : [],
    stepCount: 0,
    steps: [],
  };
}

/** The streamed text a completed block covers is no longer "streaming". */
function consumeStreamed(streaming: Map<string, string>, turnId: string, text: string): Map<string, string> {
  const buf = streaming.get(turnId);
  if (buf === undefined) return streaming;
  const next = new Map(streaming);
  const at = buf.indexOf(text);
  const rest = at >= 0 ? buf.slice(at + text.length) : '';
  if (rest) next.set(turnId, rest);
  else next.delete(turnId);
  return next;
}

function applyStep(c: ConversationState, step: Step): ConversationState {
  const turn = c.turns.get(step.turnId) ?? placeholderTurn(c, step.turnId, step.at, null);
  const steps = [...turn.steps];
  steps[step.index] = step;
  let next = putTurn(c, { ...turn, steps, stepCount: Math.max(turn.stepCount, step.index + 1) });
  if (step.kind === 'text' && !step.partial)
    next = { ...next, streaming: consumeStreamed(next.streaming, step.turnId, step.text) };
  if (step.kind === 'steer')
    next = setMessage(next, step.messageId, (m) => (FINAL.includes(m.state) ? m : { ...m, state: 'steering' }));
  return next;
}

function applyTurn(c: ConversationState, summary: TurnSummary): ConversationState {
  const had = c.turns.get(summary.id);
  let next = putTurn(c, { ...summary, steps: had?.steps ?? [] });
  if (summary.status !== 'running' && next.streaming.has(summary.id)) {
    const streaming = new Map(next.streaming);
    streaming.delete(summary.id);
    next = { ...next, streaming };
  }
  // Inputs the turn took are no longer waiting.
  for (const id of summary.inputIds) {
    next = setMessage(next, id, (m) => {
      if (FINAL.includes(m.state)) return m;
      if (summary.status === 'running')
        return m.state === 'running' || m.state === 'steering' ? m : { ...m, state: 'running' };
      // A stopped or failed turn says nothing final: a stop is acked, a crash runs the input again.
      if (summary.status !== 'answered') return m;
      return { ...m, state: m.state === 'steering' ? 'steered' : 'answered' };
    });
  }
  return next;
}

const ACK_STATE: Partial<Record<TimedAck['kind'], MessageState>> = {
  queued: 'queued',
  steered: 'steering',
  stopped: 'stopped',
};

/** Applies one event of the stream. `unknownMessage` is told of a message this device has not seen (sent elsewhere). */
export function applyEvent(
  c: ConversationState,
  e: StreamEvent,
  unknownMessage: (id: string) => void = () => undefined,
): ConversationState {
  const { messageId } = e.data;
  let next = e.id !== undefined && e.id > c.lastEventId ? { ...c, lastEventId: e.id } : c;
  switch (e.type) {
    case 'text': {
      const { turnId, delta } = e.data;
      if (!turnId) return next;
      if (!next.turns.has(turnId)) next = putTurn(next, placeholderTurn(next, turnId, e.data.at, messageId));
      const streaming = new Map(next.streaming);
      streaming.set(turnId, (streaming.get(turnId) ?? '') + delta);
      return { ...next, streaming };
    }
    case 'step':
      return applyStep(next, e.data.step);
    case 'turn':
      return applyTurn(next, e.data.turn);
    case 'ack': {
      if (!messageId) return next;
      if (!next.messages.has(messageId)) {
        unknownMessage(messageId);
        return next;
      }
      const { kind, emoji, note, at } = e.data;
      const ack: TimedAck = { kind, emoji, ...(note !== undefined ? { note } : {}), at };
      return setMessage(next, messageId, (m) => {
        let out = withAck(m, ack);
        if (kind === 'received') out = { ...out, receivedAt: at };
        const state = ACK_STATE[kind];
        if (state && !FINAL.includes(m.state) && !(state === 'queued' && staysPut(m)))
          out = { ...out, state, reason: note ?? out.reason };
        else if (state === 'stopped') out = { ...out, state: 'stopped' };
        return out;
      });
    }
    case 'reply': {
      const d = e.data;
      if (next.replies.has(d.outboxId)) return next;
      const reply: Reply = {
        id: d.outboxId,
        kind: d.kind,
        text: d.text,
        messageIds: d.messageIds,
        fromFallback: d.fromFallback,
        at: d.at,
      };
      const replies = new Map(next.replies);
      replies.set(reply.id, reply);
      return { ...next, replies };
    }
    case 'review': {
      if (e.id === undefined || next.reviews.has(e.id)) return next;
      const { messageId: _, ...data } = e.data;
      const reviews = new Map(next.reviews);
      reviews.set(e.id, { ...data, id: e.id });
      return { ...next, reviews };
    }
    case 'message': {
      if (!messageId) return next;
      const { state, text, at, transcript } = e.data;
      return setMessage(next, messageId, (m) => {
        const edited = text !== undefined && text !== m.text;
        const heard = transcript !== undefined && transcript !== m.voice?.transcript;
        if (!edited && !heard && state === m.state) return m;
        return {
          ...m,
          // A transcript says the voice note is ready; it never moves a message back from running.
          state: heard && FINAL.concat('running', 'steering').includes(m.state) ? m.state : (state as MessageState),
          ...(text !== undefined ? { text } : {}),
          ...(heard ? { voice: { transcript } } : {}),
          ...(edited ? { seen: [...(m.seen ?? []), { kind: 'edited' as const, at }] } : {}),
        };
      });
    }
    default:
      return next;
  }
}
