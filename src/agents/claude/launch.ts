/** Everything needed to start a Claude Code process for one conversation, and how a launch context makes it. */
import type { Logger } from '../../ops/logger.js';
import type { SessionLaunch } from '../common/session-base.js';
import { type LaunchContext, launchBase } from '../launch.js';
import type { LaunchOptions } from './args.js';
import { resolveClaudeBinary } from './binary.js';
import { claudeEnv } from './env.js';
import type { ProcessTracker, SpawnSpec } from './process.js';
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

/** A conversation's Claude launch; a binary not found now is logged, and the spawn names what is missing. */
export function claudeLaunch(ctx: LaunchContext, spare: SpareProcess | undefined): ClaudeLaunch {
  const { agent, settings } = ctx;
  let bin: string;
  try {
    bin = resolveClaudeBinary(agent.claudeBin, ctx.env).path;
  } catch (err) {
    ctx.logger.error({ err: (err as Error).message }, 'no claude binary: run `rudder doctor`');
    bin = agent.claudeBin ?? 'claude';
  }
  return {
    ...launchBase(ctx),
    ...settings,
    bin,
    env: claudeEnv(agent, ctx.env),
    autocompact: agent.autocompact,
    spare,
  };
}

/** The process a launch starts with these arguments, in its directory and environment, tracked and marked. */
export function spawnSpec(launch: ClaudeLaunch, args: string[], logger: Logger): SpawnSpec {
  const { bin, cwd, env, tracker, markPrefix } = launch;
  return { bin, args, cwd, env, logger, label: launch.conversationId, tracker, markPrefix };
}
