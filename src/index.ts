/** The package's public surface. */
export { classifyPane, classifyPaneDetailed, canTypeNow } from './agents/tmux/pane-state.js';
export type { PaneVerdict } from './agents/tmux/pane-state.js';
export { ClaudeStreamSession } from './agents/claude/stream-session.js';
export { ClaudeOneShotSession } from './agents/claude/oneshot-session.js';
export { ClaudeTmuxSession } from './agents/tmux/tmux-session.js';
export type { TmuxPhase } from './agents/tmux/tmux-session.js';
export type { TmuxLaunch, TmuxSettings } from './agents/tmux/tmux-launch.js';
export { SessionRegistry } from './agents/registry.js';
export { AgentPool } from './agents/pool.js';
export type * from './agents/session.js';
export { parseLine } from './agents/claude/protocol/parse.js';
export type * from './agents/claude/protocol/output.js';
export { wrapExternal } from './security/wrap.js';
export { startGateway } from './gateway/gateway.js';
export { RudderError, ERRORS } from './errors.js';
export type { ErrorCode } from './errors.js';
