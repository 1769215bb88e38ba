/**
 * Everything an ACP session needs, and how a conversation's launch context becomes it (acpLaunch,
 * the agent table's `acp` and `acp:<preset>` entries). The ACP session id is the session id: saved
 * through onSessionId when a session is made or loaded and after every turn, given back as sessionId
 * to load it in a new process. The timings (turn timeout, interrupt grace, kill grace) are the
 * session base's (SessionLaunch).
 */
import type { PermissionMode } from '../../config/permission-modes.js';
import type { AgentConfig } from '../../config/schema.js';
import type { ProcessTracker } from '../claude/process.js';
import type { SessionLaunch } from '../common/session-base.js';
import { type LaunchContext, launchBase } from '../launch.js';
import { type AcpCommand, resolveAcpCommand } from './command.js';
import { buildAcpEnv } from './env.js';
import type { AcpPreset } from './presets.js';
import type { AcpProcesses } from './processes.js';

export interface AcpLaunch extends SessionLaunch {
  /** The conversation's directory: the process's cwd, session/new's cwd, and the only place fs/* may touch. */
  cwd: string;
  /** What to run (resolveAcpCommand), or how to find it at each process start (then a later install is found). */
  command: AcpCommand | (() => AcpCommand);
  /** The agent as people read it ("Gemini"; agent.acp.name). */
  label: string;
  /** The config's name of the backend (acp, acp:gemini…), for logs and status. */
  backend?: string;
  /** The known agent this is, for its quirks (steering, modes, refusals); none for a custom command. */
  preset?: AcpPreset;
  /** The agent's environment (buildAcpEnv). */
  env: Record<string, string>;
  permissionMode: PermissionMode;
  /** The model, set as the session's `model` config option where the agent offers that value. */
  model?: string;
  /** Serve terminal/* (commands the agent runs through Rudder). Off: declared unsupported in initialize. */
  terminal?: boolean;
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

/** An ACP agent's environment from agent.passEnv, agent.env and agent.acp.env (the last wins). */
export function acpEnv(preset: AcpPreset | undefined, agent: AgentConfig | undefined, inherited: NodeJS.ProcessEnv) {
  return buildAcpEnv({ preset, inherited, passVars: agent?.passEnv, extra: { ...agent?.env, ...agent?.acp.env } });
}

/** A conversation's launch on an ACP backend, its process shared with the conversations of its directory. */
export function acpLaunch(
  ctx: LaunchContext,
  backend: string,
  preset: AcpPreset | undefined,
  processes: AcpProcesses,
): AcpLaunch {
  const { agent, settings } = ctx;
  return {
    ...launchBase(ctx),
    backend,
    // Found at each process start: an agent installed later is found, a setting naming none fails the turn.
    command: () => resolveAcpCommand(agent.acp, preset, ctx.env),
    label: agent.acp.name ?? preset?.label ?? agent.acp.command ?? 'The ACP agent',
    ...(preset ? { preset } : {}),
    env: acpEnv(preset, agent, ctx.env),
    permissionMode: settings.permissionMode,
    ...(settings.model ? { model: settings.model } : {}),
    terminal: agent.acp.terminal,
    processes,
  };
}
