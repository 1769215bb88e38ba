/**
 * The package's public surface: what an embedder needs to run the gateway in its own process
 * (startGateway with a config, a logger and channels of its own), the wire of the HTTP API, and the
 * agent sessions as a library.
 */

export { ClaudeOneShotSession } from './agents/claude/oneshot-session.js';
// Agent sessions as a library.
export type * as ClaudeProtocol from './agents/claude/protocol/output.js';
export { parseLine } from './agents/claude/protocol/parse.js';
export { ClaudeStreamSession } from './agents/claude/stream-session.js';
export { AgentPool } from './agents/pool.js';
export { SessionRegistry } from './agents/registry.js';
export type {
  AgentSession,
  Capabilities,
  PermissionAnswer,
  PermissionRequest,
  SessionState,
  SteerPromise,
  SteerResult,
  Turn,
  TurnEvent,
  TurnInput,
  TurnResult,
  Usage,
  UserInput,
} from './agents/session.js';
export type { PaneVerdict } from './agents/tmux/screen/pane-state.js';
export { canTypeNow, classifyPane, classifyPaneDetailed } from './agents/tmux/screen/pane-state.js';
export type { TmuxLaunch, TmuxSettings } from './agents/tmux/tmux-launch.js';
export type { TmuxPhase } from './agents/tmux/tmux-session.js';
export { ClaudeTmuxSession } from './agents/tmux/tmux-session.js';
export type { GatewayOptions, RunningGateway } from './app/start.js';
export { startGateway } from './app/start.js';
// Running the gateway: its config (loaded and followed), a logger, channels of one's own.
export type * from './channels/channel.js';
export type { ConfigEvents, LoadedConfig } from './config/load.js';
export { dataDir, findConfigFile, LiveConfig, loadTrustedConfig, parseConfig } from './config/load.js';
export type { Config } from './config/schema.js';
export type { ErrorCode } from './errors.js';
export { ERRORS, RudderError } from './errors.js';
export type * from './http/wire.js';
export type { Logger, LoggerOptions } from './ops/logger.js';
export { createLogger, silentLogger } from './ops/logger.js';
export { wrapExternal } from './security/wrap.js';
