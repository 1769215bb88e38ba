/** Everything needed to start a Claude Code process for one conversation. */
import type { Logger } from '../../ops/logger.js';
import type { LaunchOptions } from './args.js';
import type { ProcessTracker } from './process.js';
import type { SpareProcess } from './spare.js';

export interface ClaudeLaunch extends LaunchOptions {
  conversationId: string;
  /** The conversation's working directory; a resumed session is always respawned here. */
  cwd: string;
  bin: string;
  env: Record<string, string>;
  logger: Logger;
  /** Session to resume, if any. */
  sessionId?: string;
  /** Called with the session id after every init and every result, so it can be persisted. */
  onSessionId?: (sessionId: string) => void;
  /** A turn running longer than this is interrupted, then killed. Default 30 min. */
  turnTimeoutMs?: number;
  /** How long an interrupt waits for the result before killing the process. Default 5 s. */
  interruptGraceMs?: number;
  /** SIGTERM -> SIGKILL delay. Default 3 s. */
  killGraceMs?: number;
  tracker?: ProcessTracker;
  /** Environment-mark prefix of this gateway's agents (see agents/common/orphans.ts). */
  markPrefix?: string;
  /** A process started ahead for a new session (steering.spareProcess); only the stream session uses it. */
  spare?: SpareProcess;
}

export const DEFAULT_TURN_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_INTERRUPT_GRACE_MS = 5_000;
export const DEFAULT_KILL_GRACE_MS = 3_000;
