/**
 * The desk's rules for an answer, whoever gives it: the option must be one the request offered, and
 * only a refusal may be chosen from a surface that did not show the input whole and plain (surfaces.ts).
 * A pure decider: the desk asks it before anything reaches the agent.
 */
import type { PermissionRequest } from '../../agents/session.js';
import { refuses } from './options.js';
import { type AnswerSurface, SURFACES } from './surfaces.js';

export type RefusalCode = 'PERMISSION_NOT_OFFERED' | 'PERMISSION_NOT_SHOWN_WHOLE';

export interface Refusal {
  code: RefusalCode;
  /** For the person, in the words of the surface the answer came from. */
  text: string;
}

/** Why this answer may not be given from `via`, or undefined when it may. */
export function refusalOf(req: PermissionRequest, optionId: string, via: AnswerSurface): Refusal | undefined {
  const option = req.options.find((o) => o.id === optionId);
  if (!option)
    return { code: 'PERMISSION_NOT_OFFERED', text: `"${optionId}" is not one of this request's option ids.` };
  if (refuses(option)) return undefined;
  const shown = SURFACES[via](req);
  return shown.whole && !shown.hides ? undefined : { code: 'PERMISSION_NOT_SHOWN_WHOLE', text: shown.refusal };
}
