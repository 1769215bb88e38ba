/** The package's public surface. */

export { ClaudeOneShotSession } from './agents/claude/oneshot-session.js';
export type * from './agents/claude/protocol/output.js';
export { parseLine } from './agents/claude/protocol/parse.js';
export { ClaudeStreamSession } from './agents/claude/stream-session.js';
export { AgentPool } from './agents/pool.js';
export { SessionRegistry } from './agents/registry.js';
export type * from './agents/session.js';
export type { PaneVerdict } from './agents/tmux/screen/pane-state.js';
export { canTypeNow, classifyPane, classifyPaneDetailed } from './agents/tmux/screen/pane-state.js';
export type { TmuxLaunch, TmuxSettings } from './agents/tmux/tmux-launch.js';
export type { TmuxPhase } from './agents/tmux/tmux-session.js';
export { ClaudeTmuxSession } from './agents/tmux/tmux-session.js';
export type { ErrorCode } from './errors.js';
export { ERRORS, RudderError } from './errors.js';
export { startGateway } from './gateway/gateway.js';
export { wrapExternal } from './security/wrap.js';
