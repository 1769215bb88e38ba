/**
 * Everything an ACP session needs, as the gateway's session factory will fill it in (phase B wires
 * it to `backend: "acp" | "acp:<preset>"` and agent.acp). The ACP session id is the session id:
 * saved through onSessionId after every turn, given back as sessionId to load it in a new process.
 */
import type { PermissionMode } from '../../config/permission-modes.js';
import type { Logger } from '../../ops/logger.js';
import type { ProcessTracker } from '../claude/process.js';
import type { AcpCommand } from './command.js';
import type { AcpPreset } from './presets.js';
import type { AcpProcesses } from './processes.js';

export interface AcpLaunch {
  conversationId: string;
  /** The conversation's directory: the process's cwd, session/new's cwd, and the only place fs/* may touch. */
  cwd: string;
  /** What to run (resolveAcpCommand), or how to find it at each process start (then a later install is found). */
  command: AcpCommand | (() => AcpCommand);
  /** The known agent this is, for its quirks (steering, modes, refusals); none for a custom command. */
  preset?: AcpPreset;
  /** The agent's environment (buildAcpEnv). */
  env: Record<string, string>;
  logger: Logger;
  permissionMode: PermissionMode;
  /** The ACP session to load, if any. */
  sessionId?: string;
  /** Called with the session id when a session is made or loaded and after every turn, so it can be persisted. */
  onSessionId?: (sessionId: string) => void;
  /** Serve terminal/* (commands the agent runs through Rudder). Off: declared unsupported in initialize. */
  terminal?: boolean;
  /** A turn running longer than this is stopped. Default 30 min. */
  turnTimeoutMs?: number;
  /** How long a stop waits for the agent to end the turn before its process is stopped. Default 5 s. */
  interruptGraceMs?: number;
  /** SIGTERM -> SIGKILL delay. Default 3 s. */
  killGraceMs?: number;
  /** How long spawn plus initialize may take. Default 60 s. */
  initTimeoutMs?: number;
  tracker?: ProcessTracker;
  /** Environment-mark prefix of this gateway's agents (see agents/common/orphans.ts). */
  markPrefix?: string;
  /**
   * The agent processes shared by the gateway's conversations (one per command, environment and directory).
   * Without it the session starts a process of its own.
   */
  processes?: AcpProcesses;
}

export const DEFAULT_TURN_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_INTERRUPT_GRACE_MS = 5_000;
export const DEFAULT_KILL_GRACE_MS = 3_000;
