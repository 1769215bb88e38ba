/** Everything needed to start a Claude Code process for one conversation. */
import type { SessionLaunch } from '../common/session-base.js';
import type { LaunchOptions } from './args.js';
import type { ProcessTracker } from './process.js';
import type { SpareProcess } from './spare.js';

export interface ClaudeLaunch extends LaunchOptions, SessionLaunch {
  /** The conversation's working directory; a resumed session is always respawned here. */
  cwd: string;
  bin: string;
  env: Record<string, string>;
  tracker?: ProcessTracker;
  /** Environment-mark prefix of this gateway's agents (see agents/common/orphans.ts). */
  markPrefix?: string;
  /** A process started ahead for a new session (steering.spareProcess); only the stream session uses it. */
  spare?: SpareProcess;
}
