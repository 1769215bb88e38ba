/**
 * Wire shapes the page reads beyond web/src/types.ts: fields of a list item the gateway sends
 * today without types.ts naming them (`sessionId`), fields the page uses as soon as the gateway
 * sends them (`branch`, `waiting`), and the answer of GET /api/conversations/:id/turns.
 */
import type { ConversationItem, TurnView } from './types.js';

export type ListItem = ConversationItem & {
  /** The agent session it last had; null before its first turn. */
  sessionId?: string | null;
  /** Its git branch, in a project with a worktree per conversation (not sent yet: derived meanwhile). */
  branch?: string | null;
  /** A permission request waits for the person (not sent yet: derived meanwhile). */
  waiting?: boolean;
};

export interface TurnsPage {
  turns: TurnView[];
  more: boolean;
}
