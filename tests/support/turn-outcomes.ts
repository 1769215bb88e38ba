/** Every turn a session runs, with its outcome once settled: what the session tests read after a burst of inputs. */
import type { Turn, TurnResult } from '../../src/agents/session.js';
import type { RudderError } from '../../src/errors.js';

export interface TurnOutcome {
  turn: Turn;
  result?: TurnResult;
  error?: RudderError;
}

export function recordTurns(session: { onTurn(l: (t: Turn) => void): () => void }): TurnOutcome[] {
  const outcomes: TurnOutcome[] = [];
  session.onTurn((turn) => {
    const rec: TurnOutcome = { turn };
    outcomes.push(rec);
    turn.result.then(
      (r) => (rec.result = r),
      (e) => (rec.error = e),
    );
  });
  return outcomes;
}
