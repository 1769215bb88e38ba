/**
 * A person's tmux pane a conversation is attached to, as the conversation keeps it and its launch
 * carries it (plain data: agents/launch.ts and the session both name it).
 */

/** A person's pane running a Claude Code TUI, as the conversation keeps it. */
export interface AttachedPane {
  /** The tmux server's socket path (`tmux -S`). */
  socket: string;
  /** tmux's id of the pane (`%12`), stable for the pane's life. */
  paneId: string;
  /** Where the person finds it: `session:window.pane`. */
  label: string;
  /** The claude process in it, and when it started: with the pid, one process. */
  pid: number;
  procStart: string | undefined;
  /** Its config dir (its transcripts and sessions/<pid>.json) and the directory its session records. */
  configDir: string;
  cwd: string;
  /** Its session; undefined while a startup dialog shows (the TUI makes one after it). */
  sessionId: string | undefined;
}

/** What the launch context carries for an attached conversation. */
export interface Attachment {
  pane: AttachedPane;
  /** The pane's claude is gone (it exited, the pane closed): the conversation is no longer attached. */
  gone(why: string): void;
}
