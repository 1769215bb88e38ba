/**
 * What a conversation's session is made from, whatever its backend: the caller (the launches of a
 * gateway or a node, projects/launches.ts) resolves the conversation's place and settings, and the
 * backend's entry in the agent table (table.ts) turns them into its own launch and session.
 */
import type { PermissionMode } from '../config/permission-modes.js';
import type { AgentConfig } from '../config/schema.js';
import type { Logger } from '../ops/logger.js';
import type { ProcessTracker } from './claude/process.js';
import type { Attachment } from './tmux/attach/attachment.js';

/** The settings a conversation's agent runs by: its project's over agent.*, its own model over both. */
export interface AgentSettings {
  model?: string;
  permissionMode: PermissionMode;
  allowedTools?: string[];
  disallowedTools?: string[];
  appendSystemPrompt?: string;
}

export interface LaunchContext {
  conversationId: string;
  /** Its project's directory, or its own worktree there. */
  cwd: string;
  /** agent.* of the config: the binaries, the environment, the timeouts, each backend's own section. */
  agent: AgentConfig;
  settings: AgentSettings;
  /** The session to resume, if any. */
  sessionId: string | undefined;
  /** Keeps a session id the agent reports (under the conversation's project). */
  onSessionId(sessionId: string): void;
  /** The environment Rudder runs in: PATH, the RUDDER_*_BIN variables, the base of the agent's. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Rudder's data dir (the TUI's long messages are saved under it). */
  dataDir: string;
  /** Told of every agent process, so a restart after a crash finds the ones left behind. */
  tracker: ProcessTracker;
  /** The mark every agent process of this data dir carries (common/orphans.ts). */
  markPrefix: string;
  /** The person's pane the conversation is attached to (the claude-attached entry). */
  attached?: Attachment;
}

/** What every backend's launch takes from the context as it is (the timeouts from agent.*). */
export function launchBase(ctx: LaunchContext) {
  return {
    conversationId: ctx.conversationId,
    cwd: ctx.cwd,
    logger: ctx.logger,
    sessionId: ctx.sessionId,
    onSessionId: ctx.onSessionId,
    turnTimeoutMs: ctx.agent.turnTimeoutSeconds * 1000,
    interruptGraceMs: ctx.agent.interruptGraceSeconds * 1000,
    tracker: ctx.tracker,
    markPrefix: ctx.markPrefix,
  };
}
