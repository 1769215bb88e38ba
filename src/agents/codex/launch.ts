/**
 * Everything a Codex session needs, as the gateway's session factory fills it in. The thread id is
 * the session id: saved through onSessionId when the thread starts or resumes and after every turn,
 * given back as sessionId to resume. The interrupt's grace is how long codex may take to end the
 * turn before Rudder ends it; the kill grace holds for the app-server and a turn's commands.
 */

import type { PermissionMode } from '../../config/permission-modes.js';
import type { ProcessTracker } from '../claude/process.js';
import type { SessionLaunch } from '../common/session-base.js';
import { type LaunchContext, launchBase } from '../launch.js';
import { resolveCodexBinary } from './binary.js';
import { codexEnv } from './env.js';
import type { CodexServers } from './server/servers.js';

export interface CodexLaunch extends SessionLaunch {
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
  permissionMode: PermissionMode;
  model?: string;
  /** Added after the external-content rules, which always come first in the developer instructions. */
  appendSystemPrompt?: string;
  tracker?: ProcessTracker;
  /** Environment-mark prefix of this gateway's agents (see agents/common/orphans.ts). */
  markPrefix?: string;
  /**
   * The app-servers shared by the gateway's conversations (one per distinct binary, config and
   * environment). Without it the session starts an app-server of its own and stops it with itself.
   */
  servers?: CodexServers;
}

/** A conversation's Codex launch, on the gateway's shared app-servers. */
export function codexLaunch(ctx: LaunchContext, servers: CodexServers): CodexLaunch {
  const { agent, settings } = ctx;
  return {
    ...launchBase(ctx),
    // Found at each server start: a binary installed later is found, a setting naming none fails the turn.
    bin: () => resolveCodexBinary(agent.codex.bin, ctx.env).path,
    config: agent.codex.config,
    env: codexEnv(agent, ctx.env),
    model: settings.model,
    permissionMode: settings.permissionMode,
    appendSystemPrompt: settings.appendSystemPrompt,
    servers,
  };
}
