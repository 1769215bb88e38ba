/**
 * Holding a lane's inputs, decided: a rate limit (until it resets, the local fallback model answering
 * meanwhile), the agent's terminal not taking a message (tried again after a while, or at /retry), the
 * project's daily budget spent (until the day ends or /budget raises it), or an agent that cannot be
 * reached (run when its session says it is back; tried again meanwhile). Each decision says until when,
 * why (the hold's reason), and what each held message is stored with (held_for and its reason); the lane
 * writes it and tells the person.
 */
import type { RudderError } from '../../errors.js';
import type { HeldFor } from '../../store/types.js';
import type { BudgetState } from '../budget/budgets.js';
import { HELD_NOTE, HELD_REASON } from '../budget/texts.js';
import type { HoldReason, Unreachable } from './hold.js';

/** When the agent gives no reset time, try it again after this long. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 15 * 60_000;
/** The person's words for a message held by a rate limit; the second says the reset time is a guess. */
const RATE_LIMITED = 'rate limited';
const RATE_LIMITED_ESTIMATED = 'rate limited (reset time estimated)';
/** A message the agent's terminal did not take is tried again after this long (or at /retry). */
const AGENT_HOLD_MS = 60_000;
/** Why a message waits while the conversation's session is open in a terminal program (`rudder attach`, Codex). */
const TERMINAL_OPEN = 'the session is open in a terminal';
/** An unreachable agent is tried again this often even if nothing says it is back. */
const UNREACHABLE_RETRY_MS = 60_000;

export interface HoldPlan {
  until: number;
  why: HoldReason;
  /** The reset time is a guess (the CLI gave none). */
  estimated: boolean;
  /** What each held message is stored with. */
  heldFor: HeldFor;
  stored: string;
}

export function rateLimitHold(err: RudderError, now: number): HoldPlan {
  const known = err.context.resetsAt !== undefined;
  return {
    until: err.context.resetsAt ?? now + DEFAULT_RATE_LIMIT_WAIT_MS,
    why: 'rate-limit',
    estimated: !known,
    heldFor: known ? 'rate-limit' : 'rate-limit-estimated',
    stored: known ? RATE_LIMITED : RATE_LIMITED_ESTIMATED,
  };
}

/** The agent's terminal did not take the message (or it never showed up there): it stays owed, tried again later. */
export function terminalHold(err: RudderError, now: number): HoldPlan {
  const until = now + AGENT_HOLD_MS;
  return { until, why: 'agent-terminal', estimated: false, heldFor: 'agent-terminal', stored: err.code };
}

/** The project's daily budget is spent: held until the day ends (or /budget raises it). */
export function budgetHold(spent: BudgetState): HoldPlan {
  return { until: spent.end, why: 'budget', estimated: false, heldFor: 'budget', stored: HELD_REASON };
}

/** The agent cannot be reached (its machine is lost): held, never failed for it, tried again after a while. */
export function unreachableHold(err: RudderError, now: number): HoldPlan {
  const until = now + UNREACHABLE_RETRY_MS;
  return { until, why: 'agent-unreachable', estimated: false, heldFor: 'agent-unreachable', stored: err.message };
}

export interface HeldView {
  until: number;
  why: HoldReason;
  estimated: boolean;
  /** What the person was told of an unreachable agent. */
  unreachable: Unreachable | undefined;
}

export interface ArrivalHold {
  until: number;
  heldFor: HeldFor;
  stored: string;
  /** The message's ack. */
  note: string;
  /** The local model answers it meanwhile (a rate limit). */
  fallback: boolean;
}

/** A message arriving while the lane is held waits behind what it holds, for the same reason. */
export function arrivalHold(h: HeldView, agent: string): ArrivalHold {
  const { until } = h;
  if (h.why === 'budget') return { until, heldFor: 'budget', stored: HELD_REASON, note: HELD_NOTE, fallback: false };
  if (h.why === 'agent-unreachable') {
    const told = h.unreachable?.told ?? 'The agent cannot be reached.';
    const note = `${told} This runs when it is back, after the messages before it.`;
    return { until, heldFor: 'agent-unreachable', stored: told, note, fallback: false };
  }
  if (h.why === 'terminal-open')
    return {
      until,
      heldFor: 'terminal-open',
      stored: TERMINAL_OPEN,
      note: `${TERMINAL_OPEN}: this runs once it is handed back here, in order`,
      fallback: false,
    };
  if (h.why === 'agent-terminal')
    return {
      until,
      heldFor: 'agent-terminal',
      stored: 'waiting for the agent terminal',
      note: 'an earlier message waits for the agent terminal; this runs after it',
      fallback: false,
    };
  return {
    until,
    heldFor: h.estimated ? 'rate-limit-estimated' : 'rate-limit',
    stored: h.estimated ? RATE_LIMITED_ESTIMATED : RATE_LIMITED,
    note: `${capital(agent)} is rate limited; this runs when the limit resets`,
    fallback: true,
  };
}

export function terminalNotice(err: RudderError, until: number): string {
  const when = `${new Date(until).toISOString().slice(11, 19)} UTC`;
  return `⏳ ${err.message} Your message is kept and tried again at ${when}; send /retry to try sooner.`;
}

export function unreachableNotice(detail: string): string {
  return `⏳ ${detail} Your message is kept and runs when it is back, in order; you will be told.`;
}

export function reachableNotice(where: string | undefined, held: number): string {
  return `✓ ${where ?? 'The agent'} is reachable again: your ${held} held message(s) run now, in order.`;
}

/** When a rate limit resets, as the fallback's texts say it. */
function resetTime(until: number, known: boolean): string {
  return `${new Date(until).toISOString().slice(11, 16)} UTC${known ? '' : ' (estimated)'}`;
}

export function fallbackReply(agent: string, until: number, known: boolean, text: string): string {
  const when = resetTime(until, known);
  return `[local model, ${agent} is rate limited until ${when}; this message runs on ${agent} again then]\n\n${text}`;
}

export function fallbackFailedNotice(agent: string, until: number, known: boolean, why: string): string {
  return (
    `⏳ ${capital(agent)} is rate limited until ${resetTime(until, known)}. Your message is kept and runs on ` +
    `${agent} then; send /retry to try sooner. (No local model answered: ${why})`
  );
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
