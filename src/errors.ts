/**
 * Every failure Rudder reports has a stable code from this one registry, so logs,
 * `rudder doctor`, the HTTP API and the text a user sees agree on what went wrong.
 */
export const ERRORS = {
  // agent: Claude Code processes and sessions
  CLAUDE_BINARY_MISSING:
    'The claude binary was not found. Install @anthropic-ai/claude-code, put claude on PATH, or set ' +
    'RUDDER_CLAUDE_BIN / agent.claudeBin.',
  AGENT_SPAWN_FAILED: 'The agent process could not be started. Run `rudder doctor`.',
  AGENT_STDIN_BROKEN: 'Writing to the agent process failed (broken pipe); it has exited.',
  AGENT_EOF_WITHOUT_RESULT: 'The agent process closed its output before the turn produced a result.',
  AGENT_CRASHED: 'The agent process died in the middle of a turn.',
  AGENT_TURN_TIMEOUT: 'The turn took longer than agent.turnTimeoutSeconds and was stopped.',
  AGENT_RATE_LIMITED: 'The agent is rate limited by its model provider.',
  AGENT_API_ERROR: 'The request to the model failed.',
  AGENT_TURN_FAILED: 'The turn ended with an error.',
  AGENT_BUSY: 'A turn is already running in this session.',
  AGENT_STOPPED: 'The agent session was stopped.',
  AGENT_SESSION_NOT_FOUND: 'The saved session could not be resumed; a new session was started.',
  SESSION_HELD: 'That Claude Code session belongs to another conversation: one session, one conversation.',
  SESSION_IN_TERMINAL: 'That session is open in a terminal: one program writes a session at a time.',
  AGENT_UNDELIVERED: 'The message could not be delivered to the agent.',
  AGENT_NOT_READY: 'The agent terminal is not ready for input.',
  TURN_CUT_OFF: 'Rudder stopped while this turn was running.',
  AGENT_UNSUPPORTED: 'This agent backend cannot do that (its capabilities say so).',
  // agent: Codex through its app-server
  CODEX_BINARY_MISSING:
    'The codex binary was not found. Install @openai/codex (npm ci brings the pinned one), put codex on PATH, or ' +
    'set RUDDER_CODEX_BIN / agent.codex.bin.',
  CODEX_PROTOCOL: 'The codex app-server answered in a way Rudder does not understand.',
  AGENT_UNREACHABLE:
    "The machine this conversation's agent runs on cannot be reached; its messages wait until it is back.",
  // nodes: agents on other machines, over NATS JetStream
  NATS_SERVER_MISSING:
    'nats-server was not found. Install it (apt-get install -y nats-server) or set nodes.natsServerBin.',
  NATS_SERVER_FAILED: 'The embedded nats-server did not start.',
  NATS_UNAVAILABLE: 'The NATS server cannot be reached (or refused the credentials).',
  NODE_JOIN_INVALID: 'The join token is not valid. Run `rudder node add <name>` on the front and use what it prints.',
  NODE_URL_PLAINTEXT: 'A node would reach NATS in plain text across the network.',
  NODE_UNKNOWN: 'No node by that name has been added. `rudder node add <name>` on the front adds one.',
  NODE_REFUSED: 'A node sent something about a conversation that is not its own; it was refused.',
  // config
  CONFIG_INVALID: 'The configuration is not valid.',
  CONFIG_UNREADABLE: 'The configuration file could not be read.',
  CONFIG_UNSAFE: 'The configuration file can be changed by other users.',
  // data dir
  DATA_DIR_UNSAFE: 'The data dir is not safe to use.',
  ALREADY_RUNNING: 'Rudder is already running on this data dir.',
  // store
  STORE_FAILED: 'The message store failed.',
  // gateway and HTTP API
  BAD_REQUEST: 'The request is not valid.',
  UNAUTHORIZED: 'A valid bearer token is required.',
  NOT_FOUND: 'Not found.',
  METHOD_NOT_ALLOWED: 'That method is not served at this path.',
  GATEWAY_STARTING: 'The gateway is starting; try again in a moment.',
  INTERNAL_ERROR: 'Internal error; see the gateway log.',
  HOST_NOT_ALLOWED: 'The Host header names an address this gateway does not serve.',
  ORIGIN_NOT_ALLOWED: 'Requests from this origin are not allowed.',
  UNSUPPORTED_MEDIA_TYPE: 'The body must be sent as application/json.',
  MESSAGE_NOT_WAITING: 'The message no longer waits in line, so it cannot be withdrawn or edited.',
  QUEUE_FULL: 'The conversation queue is full.',
  REFUSED: 'The sender is not allowed to use this gateway.',
  FALLBACK_UNAVAILABLE: 'The local fallback model could not answer.',
  // permission requests: the desk's rules for every answer, whatever surface it comes from
  PERMISSION_NOT_OFFERED: 'That option is not one the permission request offered.',
  PERMISSION_NOT_SHOWN_WHOLE:
    'The request was not shown whole (or its input hides characters) where this answer comes from: it may only be ' +
    'refused there.',
  // channels
  CHANNEL_CONFIG: 'A channel is missing a token or setting.',
  CHANNEL_SEND_FAILED: 'The platform refused the message.',
  CHANNEL_RATE_LIMITED: 'The platform asked us to slow down.',
  STT_NOT_CONFIGURED: 'Voice notes are not set up.',
  STT_FAILED: 'The voice note could not be transcribed.',
  // notifications (Web Push)
  PUSH_DISABLED: 'Notifications are turned off on this gateway (push.enabled is false).',
  PUSH_SEND_FAILED: 'A push service did not take a notification.',
  TTS_NOT_CONFIGURED: 'Replies are not spoken: set tts.command in the config (a text-to-speech program such as piper).',
  TTS_FAILED: 'The voice note of a reply could not be made.',
  // projects, worktrees and terminal sessions
  PROJECT_UNKNOWN: 'No project by that name is configured.',
  PROJECT_UNAVAILABLE: "The conversation's project directory cannot be used.",
  NOT_A_GIT_REPO: 'The project is not a git repository, so it cannot give conversations their own worktrees.',
  WORKTREE_FAILED: 'The git worktree could not be prepared.',
  PANE_GONE: 'The claude in that tmux pane is no longer running there.',
  PANE_HELD: 'Another conversation drives that tmux pane: one pane, one conversation.',
  TERMINAL_UNSUPPORTED: "This conversation's agent has no terminal program Rudder can hand its session to.",
  TERMINAL_NO_SESSION: 'This conversation has no session yet to open in a terminal: send it a message first.',
  TERMINAL_MOVE_FAILED:
    'The session could not be moved to a terminal pane: the conversation goes on in its own process. Run ' +
    '`rudder doctor` (its tmux and TUI checks).',
  TERMINAL_NO_PANE: "This conversation's terminal pane is not running now: send it a message, then try again.",
  GIT_MISSING: 'git is not installed. Install it (apt-get install -y git) or set worktrees to false.',
  // review: the agent's work in a worktree (changes, commit, merge, push, pull request, discard)
  REVIEW_BUSY: 'A turn is running in this worktree. Wait for it to end or /stop it, then try again.',
  REVIEW_READ_ONLY:
    "This project has no worktrees, so its changes are shown read-only. Set the project's worktrees to true to " +
    'commit, merge and discard from here.',
  REVIEW_IN_PROGRESS: 'Another review action is running on this worktree. Wait for it to end, then try again.',
  REVIEW_GIT_FAILED: 'A git command failed.',
  REVIEW_GIT_TIMEOUT: 'A git command took too long and was stopped.',
  REVIEW_GIT_STOPPED: 'A git command was stopped because Rudder is shutting down.',
  REVIEW_NO_IDENTITY:
    'git does not know who you are, so it cannot commit. Run git config --global user.name "Your Name" and ' +
    'git config --global user.email you@example.com, then try again.',
  REVIEW_NOT_ON_BRANCH: 'The worktree is not on a branch (detached HEAD).',
  REVIEW_BASE_UNKNOWN: 'The base branch cannot be used.',
  REVIEW_EMPTY_MESSAGE: 'The commit message is empty. Write what the change does, then commit again.',
  REVIEW_NOTHING_TO_COMMIT: 'There is nothing to commit: the worktree has no uncommitted changes.',
  REVIEW_OPERATION_IN_PROGRESS: 'git is in the middle of another operation there. Finish or abort it first.',
  REVIEW_WORKTREE_DIRTY: 'The worktree has uncommitted changes.',
  REVIEW_BASE_DIRTY: "The base branch's checkout has uncommitted changes.",
  REVIEW_MERGE_FAILED: 'The merge did not happen.',
  REVIEW_MERGE_NOT_CLEAN: 'The merge was stopped but a tree is not as it was before. Check it with git status.',
  REVIEW_NO_REMOTE: 'The project has no git remote to push to. Add one with git remote add origin <url>.',
  REVIEW_PUSH_FAILED: 'The push was refused.',
  REVIEW_GH_MISSING:
    'Opening a pull request needs the GitHub CLI, which is not installed. Install gh (https://cli.github.com), ' +
    'run gh auth login, then try again.',
  REVIEW_GH_LOGGED_OUT: 'The GitHub CLI is not logged in. Run gh auth login, then try again.',
  REVIEW_PR_FAILED: 'The pull request could not be opened.',
  REVIEW_NOT_A_WORKTREE: "Discarding works only in a conversation's own worktree, never in the project's checkout.",
  REVIEW_TOO_MANY_FILES: 'There are too many uncommitted files to list them all for a confirmation.',
  REVIEW_CONFIRM_STALE: 'The files to discard changed since they were listed, so nothing was discarded.',
  REVIEW_FILE_UNKNOWN: 'That file has no change to show.',
  REVIEW_NO_WORKTREE:
    "This conversation has no worktree yet: its agent's first turn makes one. Send it a message, then look again.",
  // tmux
  TMUX_MISSING: 'tmux is not installed. Install it (apt-get install -y tmux) or use the claude-stream backend.',
  TMUX_FAILED: 'A tmux command failed.',
  // jobs: messages from a schedule (a clock) or a webhook (a signed POST)
  SCHEDULE_MISSED: 'Rudder was not running when this schedule was due, and the run is older than its catchUpMinutes.',
  SCHEDULE_OVERLAP: "This schedule's previous run is still running, so this run was skipped.",
  SCHEDULE_TIMEOUT: "The scheduled run took longer than the schedule's timeoutMinutes and was stopped.",
  SCHEDULE_UNKNOWN: 'No schedule by that name. /schedules (or GET /api/schedules) lists them.',
  SCHEDULE_INVALID: 'The schedule was not saved: its definition does not check (the message says which field).',
  SCHEDULE_REFUSED: "The schedule's state refuses that now (a run still runs, or it belongs to the config file).",
  HOOK_UNKNOWN: 'No webhook by that name is configured.',
  HOOK_TOO_LARGE: 'The webhook body is over 1 MB.',
  HOOK_SIGNATURE_INVALID:
    "The webhook signature is missing or wrong. Sign the raw body with the hook's secret (X-Hub-Signature-256 or " +
    'X-Rudder-Signature).',
  HOOK_BODY_INVALID: 'The webhook body must be a JSON object.',
  // --- ACP agents (backend "acp", "acp:<preset>"): added by the ACP backend; keep this block last ---
  ACP_COMMAND_MISSING:
    "The ACP agent's command was not found: install the agent's package, put its command on PATH, or set " +
    'agent.acp.command (`rudder doctor` checks it).',
  ACP_START_FAILED:
    'The ACP agent did not start: it exited or did not answer initialize. Check agent.acp.command and ' +
    'agent.acp.args (`rudder doctor` runs the agent and shows its error).',
  ACP_AUTH_REQUIRED:
    "The ACP agent needs a login before it can work: log in with the agent's own command, or set its API key " +
    'in agent.acp.env (`rudder doctor` says how this agent logs in).',
  // --- end of the ACP block ---
} as const;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorContext {
  conversationId?: string;
  channel?: string;
  pid?: number;
  /** Input (message) ids a failed turn did not answer, so the caller can run them again. */
  unanswered?: string[];
  /** Epoch milliseconds when a rate limit resets, when known. */
  resetsAt?: number;
  [key: string]: unknown;
}

export class RudderError extends Error {
  readonly code: ErrorCode;
  readonly context: ErrorContext;

  constructor(code: ErrorCode, detail?: string, context: ErrorContext = {}, cause?: unknown) {
    super(detail ? `${ERRORS[code]} ${detail}` : ERRORS[code], cause === undefined ? undefined : { cause });
    this.name = 'RudderError';
    this.code = code;
    this.context = context;
  }

  toJSON(): { code: ErrorCode; message: string; context: ErrorContext } {
    return { code: this.code, message: this.message, context: this.context };
  }
}

export function isRudderError(err: unknown, code?: ErrorCode): err is RudderError {
  return err instanceof RudderError && (code === undefined || err.code === code);
}

/**
 * Wraps anything thrown into a RudderError with the given code; an existing one keeps its code and gains the context.
 */
export function asRudderError(err: unknown, code: ErrorCode, context: ErrorContext = {}): RudderError {
  if (err instanceof RudderError) {
    for (const [k, v] of Object.entries(context)) if (err.context[k] === undefined) err.context[k] = v;
    return err;
  }
  const detail = err instanceof Error ? err.message : String(err);
  return new RudderError(code, detail, context, err);
}
