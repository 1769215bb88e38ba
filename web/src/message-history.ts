/**
 * What happened to a message, in order, as a person reads it: received, waited, handed to the
 * running turn, taken in, edited, answered, stopped… Built from what the page holds (acks, the
 * turns that took it, the replies that answer it), so a reload or another device tells the same
 * story; a time is shown where one is known (a history page carries no time for its acks).
 */
import { localTimes } from './format.js';
import type { ChatMessage } from './model.js';
import type { Reply, TurnView } from './types.js';

export interface HistoryLine {
  key: string;
  /** Where it comes in the story (a page's acks have no time to sort by). */
  rank: number;
  emoji: string;
  text: string;
  at?: number;
}

/**
 * A message handed to the running turn goes in at the agent's next step, or, when the gateway says none is coming
 * (the agent only writes text: a queued ack after the steered one), it runs next, as a turn of its own.
 */
export function runsNext(m: ChatMessage): boolean {
  if (m.state !== 'steering') return false;
  const last = [...m.acks].reverse().find((a) => a.kind === 'steered' || a.kind === 'queued');
  return last?.kind === 'queued';
}

/** The short word for where a message stands now (beside its status emoji). */
export function stateWord(m: ChatMessage): string {
  if (m.unsent === 'offline') return 'Not sent yet';
  if (m.unsent === 'failed') return 'Not accepted';
  if (runsNext(m)) return 'Runs next';
  return WORD[m.state] ?? m.state;
}

const WAITING_TEXT: Record<string, string> = {
  sending: 'Sending…',
  steering: '➡️ Handed to the running turn: the agent takes it in at its next step.',
  queued: '⏳ Waits for the running turn.',
  deferred: '⏳ Held; it runs later.',
};

const RUNS_NEXT_TEXT =
  '⏭ Runs next: the agent is writing its answer, and takes it in when that ends (or at a tool call).';

/** What a message still waiting says under it: where it waits and why, its times in this device's zone. */
export function waitText(m: ChatMessage): string {
  if (m.unsent === 'offline') return `📴 ${m.reason ?? 'Not sent yet.'}`;
  if (m.unsent === 'failed') return `⚠️ Not sent: ${m.reason ?? 'the gateway refused it.'}`;
  if (runsNext(m)) return RUNS_NEXT_TEXT;
  const ack = [...m.acks].reverse().find((a) => a.kind === 'queued');
  const note = ack?.note ?? m.reason;
  if (note && (m.state === 'queued' || m.state === 'deferred'))
    return `⏳ ${localTimes(note, ack?.at ?? m.receivedAt)}`;
  return WAITING_TEXT[m.state] ?? m.state;
}

const WORD: Record<string, string> = {
  sending: 'Sending',
  accepted: 'Received',
  queued: 'Waiting',
  deferred: 'Held',
  running: 'Working on it',
  steering: 'Handed over',
  answered: 'Answered',
  steered: 'Taken in',
  merged: 'Merged',
  refused: 'Not passed on',
  failed: 'Failed',
  stopped: 'Stopped',
  withdrawn: 'Withdrawn',
  command: 'Command',
};

/** Waiting and handed over can follow each other (a steer that runs next, then goes in at a tool): by time. */
const ACK_RANK: Record<string, number> = { queued: 1, steered: 1, stopped: 6 };

const ACK_TEXT: Record<string, string> = {
  queued: 'Waits in line behind the running turn',
  steered: 'Handed to the running turn: the agent takes it in at its next step',
  stopped: 'Stopped',
};

const FINAL: Record<string, { emoji: string; text: string }> = {
  refused: { emoji: '🚫', text: 'Not passed on to the agent' },
  failed: { emoji: '❌', text: 'Failed' },
  withdrawn: { emoji: '↩️', text: 'Withdrawn before it ran: the agent never saw it' },
  merged: { emoji: '🔗', text: 'Merged with the messages sent after it, into one turn' },
  command: { emoji: '⚙️', text: 'A command: the gateway answered it, the agent never saw it' },
};

export function messageHistory(m: ChatMessage, turns: Iterable<TurnView>, replies: Iterable<Reply>): HistoryLine[] {
  const lines: HistoryLine[] = [];
  if (m.local) {
    if (m.unsent === 'offline') lines.push({ key: 'unsent', rank: 0, emoji: '📴', text: m.reason ?? 'Not sent yet' });
    else if (m.unsent === 'failed')
      lines.push({
        key: 'unsent',
        rank: 0,
        emoji: '⚠️',
        text: `The gateway did not accept it: ${m.reason ?? 'no reason given'}`,
      });
    else lines.push({ key: 'sending', rank: 0, emoji: '⏫', text: 'Sending to the gateway…' });
    return lines;
  }
  const received = m.acks.find((a) => a.kind === 'received');
  lines.push({
    key: 'received',
    rank: 0,
    emoji: received?.emoji || '👀',
    text: 'Received by the gateway',
    at: m.receivedAt,
  });
  m.acks.forEach((a, i) => {
    if (a.kind === 'received') return;
    const text = ACK_TEXT[a.kind] ?? a.kind;
    const rank = ACK_RANK[a.kind] ?? 5;
    // A queued ack's note says where it waits; a steered one's repeats the message itself.
    const note = a.kind === 'queued' && a.note ? localTimes(a.note, a.at ?? m.receivedAt) : undefined;
    lines.push({ key: `ack:${a.kind}:${i}`, rank, emoji: a.emoji, text: note ? `${text} (${note})` : text, at: a.at });
  });
  for (const e of m.seen ?? [])
    lines.push({ key: `seen:${e.kind}:${e.at}`, rank: 2, emoji: '✏️', text: 'Edited while it waited', at: e.at });

  const mine = [...turns].filter((t) => t.inputIds.includes(m.id)).sort((a, b) => a.startedAt - b.startedAt);
  for (const t of mine) {
    const steer = t.steps.find((s) => s?.kind === 'steer' && s.messageId === m.id);
    if (steer)
      lines.push({ key: `steer:${t.id}`, rank: 4, emoji: '📥', text: 'Taken in by the agent mid-turn', at: steer.at });
    else
      lines.push({
        key: `turn:${t.id}`,
        rank: 4,
        emoji: '▶️',
        text: t.inputIds[0] === m.id ? 'The agent started on it' : 'The agent took it in with the messages before it',
        at: t.startedAt,
      });
    if (t.status === 'failed')
      lines.push({
        key: `failed:${t.id}`,
        rank: 5,
        emoji: '❌',
        text: `The turn failed: ${t.error?.message ?? 'no reason given'}`,
        at: t.endedAt,
      });
  }
  const answer = [...replies].filter((r) => r.messageIds.includes(m.id)).sort((a, b) => a.at - b.at)[0];
  if (answer && m.state !== 'command')
    lines.push({
      key: 'answer',
      rank: 7,
      emoji: '✅',
      text: answer.kind === 'reply' ? 'Answered' : `The gateway answered: ${firstLine(answer.text)}`,
      at: answer.at,
    });
  const final = FINAL[m.state];
  if (final)
    lines.push({
      key: `state:${m.state}`,
      rank: 8,
      emoji: final.emoji,
      text: m.reason && m.state !== 'withdrawn' ? `${final.text}: ${m.reason}` : final.text,
    });
  return lines.sort((a, b) => a.rank - b.rank || (a.at ?? 0) - (b.at ?? 0));
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
