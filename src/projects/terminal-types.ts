/** What opening a conversation's session in a terminal answers (`rudder attach`): on the gateway, on a node's wire. */

/**
 * How `rudder attach` opens a conversation's session in a terminal: its pane (a claude-tmux conversation's own,
 * or the person's pane it is attached to), a move of a headless session to a pane, or a Codex thread's resume line.
 */
export type TerminalWay = 'pane' | 'move' | 'codex';

/** Where to attach (`tmux -S <socket> attach-session -t <target>`). */
export interface TerminalPane {
  way: 'pane';
  socket: string;
  target: string;
  /** The pane as a person names it (`work:0.1`). */
  label: string;
  sessionId?: string;
  /** The session was moved there now (it ran headless until then). */
  moved: boolean;
  /** The node whose machine the pane is on (the socket is a path there); absent: the gateway's own machine. */
  node?: string;
}

/** A Codex conversation: the line that resumes its thread. */
export interface TerminalCodex {
  way: 'codex';
  argv: string[];
  threadId: string;
  /** The directory it resumes in (the conversation's, on the machine its agent runs on). */
  cwd: string;
  /** What to know before running it (Rudder keeps sending to the thread). */
  warning: string;
  /** The node whose machine the line runs on; absent: the gateway's own machine. */
  node?: string;
}
