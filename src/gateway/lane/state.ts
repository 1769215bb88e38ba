/**
 * What a lane is doing: one value, written only by the Lane (lane.ts), through `next`. The hold
 * (hold.ts) sits beside it; whether the agent itself is busy is the session's own state, asked
 * when a decision needs it (a backend can stay busy past a turn's end while a steer settles).
 *
 *   idle       nothing of the lane's is under way;
 *   starting   a turn is written and waits for its commit before it is handed to the agent;
 *   running    the lane follows a turn of the agent (handed over, started by the agent or followed
 *              again after a restart) until one ends with the agent free;
 *   stopping   /stop or /clear runs: nothing starts, arrivals wait in line (a start already
 *              waiting for its commit is kept, and finds its inputs stopped);
 *   releasing  the session is released (/model) after the turn it waited for; `moving`: it moves to a
 *              terminal (a hand-back), and nothing starts until the move is done (arrivals wait in line).
 * `release` is a release (/model) asked while the lane was busy: it is carried out when a turn ends
 * with the agent free, whatever the lane does then.
 */

/** A turn written and waiting for its commit: a steer from the same sender joins it. */
export interface PendingStart {
  turnId: string;
  sender: string;
}

export type LaneState =
  | { is: 'idle'; release?: string }
  | ({ is: 'starting'; release?: string } & PendingStart)
  | { is: 'running'; release?: string }
  | { is: 'stopping'; starting?: PendingStart; release?: string }
  | { is: 'releasing'; moving?: true; release?: string };

export type LaneEvent =
  /** A turn is written for the next inputs. */
  | ({ on: 'start' } & PendingStart)
  /** The hand-over after the commit is done (or could not be); agentBusy: the agent works on a turn. */
  | { on: 'start-ended'; agentBusy: boolean }
  /** The lane follows a turn from its first event. */
  | { on: 'turn-began' }
  /** A turn the lane followed ended; agentFree: nothing else keeps the agent busy. */
  | { on: 'turn-ended'; agentFree: boolean }
  | { on: 'release-asked'; reason: string }
  | { on: 'released' }
  /** The session moves to a terminal now (the lane is idle): let go, then followed there. */
  | { on: 'move' }
  | { on: 'stop' }
  /** The stop is done; agentBusy: the agent still works on a turn (one it began before the interrupt). */
  | { on: 'stop-ended'; agentBusy: boolean };

/** The turn written and waiting for its commit, also while a stop runs. */
export function pendingStart(s: LaneState): PendingStart | undefined {
  if (s.is === 'starting') return { turnId: s.turnId, sender: s.sender };
  return s.is === 'stopping' ? s.starting : undefined;
}

/** A new turn may start: no start waits for its commit and no stop runs (the hold and the agent are asked apart). */
export function mayStart(s: LaneState): boolean {
  return s.is !== 'starting' && s.is !== 'stopping' && !moving(s);
}

/** The session moves to a terminal: what arrives waits in line for the session the move leaves. */
export function moving(s: LaneState): boolean {
  return s.is === 'releasing' && s.moving === true;
}

/** A release owed is kept through every state until a turn ends with the agent free. */
const keep = (s: LaneState) => (s.release === undefined ? {} : { release: s.release });

export function next(s: LaneState, e: LaneEvent): LaneState {
  switch (e.on) {
    case 'start':
      return { is: 'starting', turnId: e.turnId, sender: e.sender, ...keep(s) };
    case 'start-ended':
      if (s.is === 'stopping') return { is: 'stopping', ...keep(s) };
      if (s.is !== 'starting') return s;
      return { is: e.agentBusy ? 'running' : 'idle', ...keep(s) };
    case 'turn-began':
      return s.is === 'idle' || s.is === 'releasing' ? { is: 'running', ...keep(s) } : s;
    case 'turn-ended':
      return turnEnded(s, e.agentFree);
    case 'release-asked':
      return { ...s, release: e.reason };
    case 'released':
      return s.is === 'releasing' ? { is: 'idle', ...keep(s) } : s;
    case 'move':
      return s.is === 'idle' ? { is: 'releasing', moving: true, ...keep(s) } : s;
    case 'stop': {
      // No turn runs while the session moves: a stop ends what waits, and the move goes on.
      if (s.is === 'stopping' || moving(s)) return s;
      const starting = pendingStart(s);
      return { is: 'stopping', ...(starting ? { starting } : {}), ...keep(s) };
    }
    case 'stop-ended':
      if (s.is !== 'stopping') return s;
      if (s.starting) return { is: 'starting', ...s.starting, ...keep(s) };
      return { is: e.agentBusy ? 'running' : 'idle', ...keep(s) };
  }
}

/**
 * A turn ended. With the agent free, a release owed is carried out: the lane is `releasing` when it
 * had nothing else under way; a start or a stop under way goes on beside the release.
 */
function turnEnded(s: LaneState, agentFree: boolean): LaneState {
  if (!agentFree) return s;
  if (s.release === undefined) return s.is === 'running' ? { is: 'idle' } : s;
  if (s.is === 'idle' || s.is === 'running') return { is: 'releasing' };
  const { release: _carriedOut, ...rest } = s;
  return rest;
}
