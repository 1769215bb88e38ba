/**
 * Where a message handed to the running turn goes in, told to the person as it changes. A backend
 * that takes a message in at a tool boundary (capabilities.steer 'tool-boundary') takes it in when
 * the running tool ends; while no tool runs (the model writes text, or waits for its answer) no
 * boundary is coming, so the message runs as the next turn unless the agent starts a tool first.
 * The turn's steps say which: the person is told at once (a queued ack: it runs next) and again
 * when that changes (a steered ack), until the message is taken in or the turn ends.
 */
import type { MessageRow } from '../../store/types.js';
import type { Replies } from '../replies/replies.js';
import type { StepLog } from '../steps/step-log.js';
import type { TurnView } from '../steps/types.js';

/** The queued ack's note while no tool boundary is coming. */
export const RUNS_NEXT = 'runs next: the agent takes a message in only at a tool call, and is writing its answer';

/**
 * A tool's end is where the message goes in: the step that says it was taken in follows the tool's end by a
 * moment, so "runs next" is said only when nothing took it in for this long after the tool ended.
 */
const SETTLE_MS = 1500;

type Landing = 'next-step' | 'next-turn';

const landingOf = (turn: TurnView): Landing =>
  turn.steps.some((s) => s?.kind === 'tool' && s.status === 'running') ? 'next-step' : 'next-turn';

const takenIn = (turn: TurnView, messageId: string) =>
  turn.steps.some((s) => s?.kind === 'steer' && s.messageId === messageId);

/**
 * Follows a steer handed to turn `turnId` (its steered ack already sent); returns the call that stops following
 * (the steer settled).
 */
export function followLanding(d: { steps: StepLog; replies: Replies }, row: MessageRow, turnId: string): () => void {
  let told: Landing = 'next-step';
  let timer: ReturnType<typeof setTimeout> | undefined;
  let off = () => {};
  const stop = () => {
    clearTimeout(timer);
    off();
  };
  const say = (landing: Landing) => {
    if (landing === told) return;
    told = landing;
    if (landing === 'next-turn') d.replies.ack(row, 'queued', RUNS_NEXT, { reactionOnly: true });
    else d.replies.ack(row, 'steered', row.text, { reactionOnly: true });
  };
  const follow = (turn: TurnView, settled: boolean) => {
    clearTimeout(timer);
    if (turn.status !== 'running' || takenIn(turn, row.id)) return stop();
    const landing = landingOf(turn);
    if (landing === told) return;
    if (landing === 'next-step' || settled) return say(landing);
    timer = setTimeout(() => {
      const now = d.steps.view(turnId);
      if (now) follow(now, true);
    }, SETTLE_MS);
    timer.unref?.();
  };
  const now = d.steps.view(turnId);
  if (!now) return stop;
  off = d.steps.onChange((turn) => turn.id === turnId && follow(turn, false));
  // At the hand-over no tool ended a moment ago: what the steps say now holds.
  follow(now, true);
  return stop;
}
