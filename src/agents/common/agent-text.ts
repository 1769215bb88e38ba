/**
 * The text an agent reads for its inputs: each one wrapped as external content, after Rudder's own
 * note about it when there is one. The note stands outside the wrapper, so no user text can forge
 * one; an input the session already holds (`inSession`) is not sent again, only its note.
 */
import { wrapExternal } from '../../security/wrap.js';
import type { UserInput } from '../session.js';

export interface AgentTextOptions {
  /** Fixed wrapper id per input (the tmux backend finds its messages in the transcript by it). */
  ids?: string[];
  /** Send the wrapped text even when the session holds it (a backend that must see its own marker arrive). */
  alwaysWrap?: boolean;
}

export function agentText(inputs: UserInput[], opts: AgentTextOptions = {}): string {
  return inputs
    .flatMap((input, n) => {
      const wrapped =
        input.inSession && input.note && !opts.alwaysWrap
          ? []
          : [wrapExternal(input.text, { source: input.source, id: opts.ids?.[n] })];
      // Merged inputs that failed together share one note.
      const note = input.note && input.note !== inputs[n - 1]?.note ? [input.note] : [];
      return [...note, ...wrapped];
    })
    .join('\n\n');
}
