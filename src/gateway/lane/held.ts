/**
 * Holding a lane's inputs: a rate limit (until it resets, the local fallback model answering
 * meanwhile), the agent's terminal not taking a message (tried again after a while, or at /retry),
 * or the project's daily budget spent (until the day ends or /budget raises it),
 * or an agent that cannot be reached (run when its session says it is back; tried again meanwhile).
 * Why each message is held is stored with it (held_for).
 */
import { isRudderError, type RudderError } from '../../errors.js';
import type { MessageRow } from '../../store/types.js';
import { HELD_NOTE, HELD_REASON, heldText } from '../budget/texts.js';
import type { LaneInternals } from './internals.js';

/** When the agent gives no reset time, try it again after this long. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 15 * 60_000;
/** The person's words for a message held by a rate limit; the second says the reset time is a guess. */
const RATE_LIMITED = 'rate limited';
const RATE_LIMITED_ESTIMATED = 'rate limited (reset time estimated)';
/** A message the agent's terminal did not take is tried again after this long (or at /retry). */
const AGENT_HOLD_MS = 60_000;
/** An unreachable agent is tried again this often even if nothing says it is back. */
const UNREACHABLE_RETRY_MS = 60_000;

export function rateLimited(lane: LaneInternals, rows: MessageRow[], err: RudderError): void {
  const known = err.context.resetsAt !== undefined;
  const until = err.context.resetsAt ?? Date.now() + DEFAULT_RATE_LIMIT_WAIT_MS;
  lane.deps.store.inbox.hold(
    rows.map((r) => r.id),
    until,
    known ? 'rate-limit' : 'rate-limit-estimated',
    known ? RATE_LIMITED : RATE_LIMITED_ESTIMATED,
  );
  lane.hold.start(until, 'rate-limit', !known);
  void answerFromFallback(lane, rows, lane.hold.until, !lane.hold.estimated);
}

/** The agent's terminal did not take the message (or it never showed up there): it stays owed, tried again later. */
export function heldBack(lane: LaneInternals, rows: MessageRow[], err: RudderError): void {
  const until = Date.now() + AGENT_HOLD_MS;
  lane.deps.store.inbox.hold(
    rows.map((r) => r.id),
    until,
    'agent-terminal',
    err.code,
  );
  lane.hold.start(until, 'agent-terminal', false);
  const when = `${new Date(until).toISOString().slice(11, 19)} UTC`;
  lane.deps.replies.send(
    lane.conversationId,
    'notice',
    `⏳ ${err.message} Your message is kept and tried again at ${when}; send /retry to try sooner.`,
    rows,
  );
}

/**
 * Before a new turn: when the project's daily budget is spent, its inputs wait (deferred, held_for budget) until
 * the day ends or /budget raises it, and the person is told once per hold. Returns whether they wait.
 */
export function heldForBudget(lane: LaneInternals, rows: MessageRow[]): boolean {
  const spent = lane.deps.budgetSpent(lane.conversationId);
  if (!spent) return false;
  const { store, replies } = lane.deps;
  const told = lane.hold.active() && lane.hold.why === 'budget';
  store.inbox.hold(
    rows.map((r) => r.id),
    spent.end,
    'budget',
    HELD_REASON,
  );
  lane.hold.start(spent.end, 'budget', false);
  lane.log.info(
    { project: spent.project, spentUsd: spent.spent.usd, limitUsd: spent.limitUsd, messages: rows.length },
    'daily budget spent: the turn waits',
  );
  if (!told) replies.send(lane.conversationId, 'notice', heldText(spent, Date.now()), rows);
  for (const row of rows) replies.ack(row, 'queued', HELD_NOTE);
  return true;
}

/**
 * The agent cannot be reached (its machine is lost): the messages are held, never failed for it; the person is told
 * once, and told again when it is back (`reachableAgain`).
 */
export function unreachable(lane: LaneInternals, rows: MessageRow[], err: RudderError): void {
  const until = Date.now() + UNREACHABLE_RETRY_MS;
  const detail = err.message;
  lane.deps.store.inbox.hold(
    rows.map((r) => r.id),
    until,
    'agent-unreachable',
    detail,
  );
  lane.hold.start(until, 'agent-unreachable', false);
  if (lane.unreachable) return;
  const node = err.context.node;
  lane.unreachable = { told: detail, where: typeof node === 'string' ? node : undefined };
  lane.log.warn({ messages: rows.length, err: detail }, 'the agent cannot be reached: messages held until it is back');
  lane.deps.replies.send(
    lane.conversationId,
    'notice',
    `⏳ ${detail} Your message is kept and runs when it is back, in order; you will be told.`,
    rows,
  );
}

/** The agent is reachable again: the person is told, and what was held runs, in order. */
export function reachableAgain(lane: LaneInternals): MessageRow[] {
  const was = lane.unreachable;
  lane.unreachable = undefined;
  if (!was) return [];
  const held = lane.deps.store.inbox.held(lane.conversationId);
  if (held.length)
    lane.deps.replies.send(
      lane.conversationId,
      'notice',
      `✓ ${was.where ?? 'The agent'} is reachable again: your ${held.length} held message(s) run now, in order.`,
      held,
    );
  return held;
}

/** A message arriving while the lane is held waits (deferred), answered by the fallback meanwhile. */
export function heldOnArrival(lane: LaneInternals, row: MessageRow): void {
  const { store, replies } = lane.deps;
  const hold = lane.hold;
  if (hold.why === 'budget') {
    store.inbox.hold([row.id], hold.until, 'budget', HELD_REASON);
    replies.ack(row, 'queued', HELD_NOTE);
    return;
  }
  if (hold.why === 'agent-unreachable') {
    const told = lane.unreachable?.told ?? 'The agent cannot be reached.';
    store.inbox.hold([row.id], hold.until, 'agent-unreachable', told);
    replies.ack(row, 'queued', `${told} This runs when it is back, after the messages before it.`);
    return;
  }
  if (hold.why === 'agent-terminal') {
    store.inbox.hold([row.id], hold.until, 'agent-terminal', 'waiting for the agent terminal');
    replies.ack(row, 'queued', 'an earlier message waits for the agent terminal; this runs after it');
    return;
  }
  store.inbox.hold([row.id], hold.until, hold.heldFor(), hold.estimated ? RATE_LIMITED_ESTIMATED : RATE_LIMITED);
  replies.ack(row, 'queued', `${capital(agentOf(lane))} is rate limited; this runs when the limit resets`);
  void answerFromFallback(lane, [row], hold.until, !hold.estimated);
}

/** The agent the conversation runs on, as the person reads it ("Claude", "the agent on node gpu"). */
const agentOf = (lane: LaneInternals) => lane.deps.settings(lane.conversationId).agent;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

async function answerFromFallback(
  lane: LaneInternals,
  rows: MessageRow[],
  until: number,
  known: boolean,
): Promise<void> {
  const conv = lane.conversationId;
  const agent = agentOf(lane);
  const when = `${new Date(until).toISOString().slice(11, 16)} UTC${known ? '' : ' (estimated)'}`;
  try {
    const text = await lane.deps.fallback(rows);
    lane.deps.replies.send(
      conv,
      'reply',
      `[local model, ${agent} is rate limited until ${when}; this message runs on ${agent} again then]\n\n${text}`,
      rows,
      { fromFallback: true },
    );
  } catch (err) {
    const why = isRudderError(err) ? err.message : String(err);
    lane.deps.replies.send(
      conv,
      'notice',
      `⏳ ${capital(agent)} is rate limited until ${when}. Your message is kept and runs on ${agent} then; ` +
        `send /retry to try sooner. (No local model answered: ${why})`,
      rows,
    );
  }
}
