/**
 * Everything a Codex session needs, as the gateway's session factory fills it in. The thread id is
 * the session id: saved through onSessionId after every turn, given back as sessionId to resume.
 */

import type { PermissionMode } from '../../config/permission-modes.js';
import type { Logger } from '../../ops/logger.js';
import type { ProcessTracker } from '../claude/process.js';
import type { CodexServers } from './server/servers.js';

export interface CodexLaunch {
  conversationId: string;
  /** The conversation's working directory (its project, or its worktree): the thread's cwd. */
  cwd: string;
  /**
   * The codex binary, or how to find it at each server start (() => resolveCodexBinary(agent.codex.bin,
   * env).path): then a binary installed later is found without a restart, and a setting that names
   * no binary fails the turn with an error naming the setting.
   */
  bin: string | (() => string);
  /** agent.codex.config: dotted keys to JSON values, each passed as one `-c key=value`. */
  config?: Record<string, unknown>;
  /** The app-server's environment (buildCodexEnv); CODEX_HOME in it says where threads live. */
  env: Record<string, string>;
  logger: Logger;
  permissionMode: PermissionMode;
  model?: string;
  /** Added after the external-content rules, which always come first in the developer instructions. */
  appendSystemPrompt?: string;
  /** The thread to resume, if any. */
  sessionId?: string;
  /** Called with the thread id when the thread starts or resumes and after every turn, so it can be persisted. */
  onSessionId?: (threadId: string) => void;
  /** A turn running longer than this is interrupted. Default 30 min. */
  turnTimeoutMs?: number;
  /** How long an interrupt waits for codex to end the turn before Rudder ends it. Default 5 s. */
  interruptGraceMs?: number;
  /** SIGTERM -> SIGKILL delay, for the app-server and for a turn's commands. Default 3 s. */
  killGraceMs?: number;
  tracker?: ProcessTracker;
  /** Environment-mark prefix of this gateway's agents (see agents/common/orphans.ts). */
  markPrefix?: string;
  /**
   * The app-servers shared by the gateway's conversations (one per distinct binary, config and
   * environment). Without it the session starts an app-server of its own and stops it with itself.
   */
  servers?: CodexServers;
}

export const DEFAULT_TURN_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_INTERRUPT_GRACE_MS = 5_000;
export const DEFAULT_KILL_GRACE_MS = 3_000;
