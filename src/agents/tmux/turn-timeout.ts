/**
 * The turn timeout, as the TUI needs it: a turn waiting on a menu for the person is never timed
 * out (the person is reminded instead); a message never typed stays owed rather than timed out.
 */
import type { TmuxTurn } from './tmux-turn.js';

export interface TurnTimeoutHooks {
  timeoutMs: number;
  menuWaiting: () => boolean;
  /** The message never reached the agent. */
  neverTyped: (turn: TmuxTurn) => void;
  /** The turn ran too long: interrupt it. */
  expired: (turn: TmuxTurn) => void;
}

export function armTurnTimeout(turn: TmuxTurn, hooks: TurnTimeoutHooks): void {
  const fire = () => {
    if (turn.isSettled()) return;
    if (hooks.menuWaiting()) {
      turn.emit({
        type: 'status',
        notify: true,
        message: '⏳ The agent is still waiting for your answer to its question.',
      });
      turn.timer = setTimeout(fire, hooks.timeoutMs).unref();
      return;
    }
    if (!turn.arrived) return hooks.neverTyped(turn);
    turn.timedOut = true;
    hooks.expired(turn);
  };
  turn.timer = setTimeout(fire, hooks.timeoutMs).unref();
}
