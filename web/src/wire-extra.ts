/**
 * Wire shapes the page reads beyond web/src/types.ts: the answer of GET /api/conversations/:id/turns
 * (the gateway's own type), and fields of a list item the page uses as soon as the gateway sends
 * them (`branch`, `waiting`; derived meanwhile).
 */
import type { ConversationItem } from './types.js';

export type { TurnsPage } from '../../src/http/wire.js';

export type ListItem = ConversationItem & {
  /** Its git branch, in a project with a worktree per conversation (not sent yet: derived meanwhile). */
  branch?: string | null;
  /** A permission request waits for the person (not sent yet: derived meanwhile). */
  waiting?: boolean;
};
