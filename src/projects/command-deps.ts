/** What the project commands (/project, /sessions, /resume, /worktree) need from the gateway. */
import type { SessionHistory } from '../agents/history.js';
import type { Query, QueryAnswer } from '../nodes/wire.js';
import type { Store } from '../store/store.js';
import type { Project } from './projects.js';
import type { Projects } from './service.js';

export interface ProjectCommandDeps {
  conversationId: string;
  projects: Projects;
  store: Store;
  /** A turn is running (or starting). */
  busy(): boolean;
  /** Stops the conversation's live session; the next turn starts a new process. */
  release(reason: string): Promise<void>;
  /** The pid of the conversation's own agent process, if one runs. */
  ownPid(): number | undefined;
  /**
   * Stops another conversation's live session: its Claude Code session moved here (/resume --force).
   * Without it a warm process there keeps the session, and this conversation's next turn is refused.
   */
  releaseOther?(conversationId: string, reason: string): Promise<void>;
  /** Tells another conversation something, as a notice in its chat (its session moved away). */
  tell?(conversationId: string, text: string): void;
  /** Whether another conversation has a turn running: its session cannot move away under it. */
  busyOther?(conversationId: string): boolean;
  /** The person's tmux servers where running Claude Code TUIs are looked for (agent.tmux.discover). */
  tmuxServers?(): readonly string[];
  /** Opens the conversation's session now and follows its turns (an attached pane's, typed in the terminal). */
  follow?(): void;
  /** The project's past sessions when its agent lists them itself (Codex's threads); else Claude Code's files. */
  history?(p: Project): SessionHistory | undefined;
  /** Asks the node a project lives on (its Claude Code sessions are on that machine); 5 s unless told. */
  askNode?(node: string, q: Query, timeoutMs?: number): Promise<QueryAnswer>;
}
