/**
 * What each of a request's options does, for a surface that must choose among them: approve, or
 * refuse. A backend says so with `kind`; Claude's and the TUI's `allow` and `deny` ids say it by
 * their name.
 */
import type { PermissionOption } from '../steps/types.js';

export function kindOf(o: PermissionOption): 'allow' | 'deny' | undefined {
  return o.kind ?? (o.id === 'allow' ? 'allow' : o.id === 'deny' ? 'deny' : undefined);
}

export const refuses = (o: PermissionOption) => kindOf(o) === 'deny';

/** The option `/allow` picks: the first that approves this request alone (no effect beyond it). */
export function plainApproval(options: PermissionOption[]): PermissionOption | undefined {
  return options.find((o) => kindOf(o) === 'allow' && !o.effect);
}

/** The option `/deny` picks. */
export function refusal(options: PermissionOption[]): PermissionOption | undefined {
  return options.find(refuses);
}
