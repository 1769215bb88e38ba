/**
 * Frames the Claude Code CLI writes on stdout with `--output-format stream-json --verbose`.
 * Source of truth: shared/claude-code-protocol.md, checked against the pinned 2.1.332 binary.
 * Fields not listed are kept on the object (frames are open), never relied on.
 */

export interface ApiUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: unknown; is_error?: boolean }
  | { type: string; [k: string]: unknown };

/** Emitted at the start of EVERY turn, not once per process. */
export interface SystemInitFrame {
  type: 'system';
  subtype: 'init';
  session_id: string;
  model?: string;
  cwd?: string;
  permissionMode?: string;
  tools?: string[];
  claude_code_version?: string;
  capabilities?: string[];
  uuid?: string;
}

/** Other system subtypes: status, api_retry, task_started, task_notification, permission_denied, compact_boundary... */
export interface SystemOtherFrame {
  type: 'system';
  subtype: string;
  session_id?: string;
  /** api_retry */
  attempt?: number;
  max_retries?: number;
  retry_delay_ms?: number;
  error_status?: number;
  [k: string]: unknown;
}

/** One frame per content block; several frames share one message.id. */
export interface AssistantFrame {
  type: 'assistant';
  message: {
    id?: string;
    role: 'assistant';
    model?: string;
    content: ContentBlock[];
    stop_reason?: string | null;
    usage?: ApiUsage;
  };
  session_id?: string;
  parent_tool_use_id?: string | null;
  uuid?: string;
  /** API errors arrive as a synthetic assistant frame: "rate_limit" | "server_error" | ... */
  error?: string;
  /** Set on a message cut off by an interrupt. */
  aborted?: boolean;
}

/** Tool results, interrupt markers, and replays of our own stdin messages (isReplay). */
export interface UserFrame {
  type: 'user';
  message: { role: 'user'; content: string | ContentBlock[] };
  session_id?: string;
  parent_tool_use_id?: string | null;
  uuid?: string;
  /** With --replay-user-messages: our stdin message echoed when the CLI takes it in. */
  isReplay?: boolean;
  tool_use_result?: unknown;
}

/** With --include-partial-messages: raw SSE events of the model stream. */
export interface StreamEventFrame {
  type: 'stream_event';
  event: {
    type: string;
    index?: number;
    delta?: { type: string; text?: string; partial_json?: string };
    [k: string]: unknown;
  };
  session_id?: string;
  parent_tool_use_id?: string | null;
}

export interface RateLimitEventFrame {
  type: 'rate_limit_event';
  rate_limit_info: {
    status: 'allowed' | 'allowed_warning' | 'rejected' | string;
    resetsAt?: number;
    rateLimitType?: string;
    [k: string]: unknown;
  };
  session_id?: string;
}

/** One model's figures in a result's modelUsage (cumulative) or model_usage_since_last_result (the turn's). */
export interface ResultModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
  costUSD?: number;
}

/** The end of a turn. Success or error is decided by is_error, never by subtype. */
export interface ResultFrame {
  type: 'result';
  subtype: string;
  is_error: boolean;
  result?: string;
  errors?: string[];
  session_id: string;
  num_turns?: number;
  duration_ms?: number;
  duration_api_ms?: number;
  /**
   * Cumulative for the session: a process started with --resume begins at the total the session's transcript
   * saved, so its first result carries every earlier process's cost too (2.1.332).
   */
  total_cost_usd?: number;
  /** This turn's tokens, summed over its model requests. */
  usage?: ApiUsage;
  /** Cumulative for the session like total_cost_usd, per model (2.1.332: camelCase fields and costUSD). */
  modelUsage?: Record<string, ResultModelUsage>;
  /** 2.1.332: this turn's own figures per model, costUSD included (since the process's previous result). */
  model_usage_since_last_result?: Record<string, ResultModelUsage>;
  stop_reason?: string | null;
  terminal_reason?: string;
  api_error_status?: number | null;
  api_error_type?: string;
  permission_denials?: unknown[];
  /** 2.1.332: the client uuid of the turn's prompt (the last member of a merged batch). */
  user_message_uuid?: string;
  /** 2.1.332: every client uuid this turn consumed, steers included, in order. */
  user_message_uuids?: string[];
  queued_turn_count?: number;
  result_index?: number;
  uuid?: string;
}

export interface ControlRequestFrame {
  type: 'control_request';
  request_id: string;
  request: {
    subtype: 'can_use_tool' | string;
    tool_name?: string;
    display_name?: string;
    input?: Record<string, unknown>;
    description?: string;
    permission_suggestions?: unknown[];
    tool_use_id?: string;
    [k: string]: unknown;
  };
}

export interface ControlResponseFrame {
  type: 'control_response';
  response: {
    subtype: 'success' | 'error';
    request_id: string;
    response?: { still_queued?: string[]; cancelled?: string[]; [k: string]: unknown };
    error?: string;
    error_code?: string;
  };
}

/** 2.1.332 with a uuid on the stdin message: the life of that message in the CLI's queue. */
export interface CommandLifecycleFrame {
  type: 'command_lifecycle';
  command_uuid: string;
  state: 'queued' | 'started' | 'completed' | 'cancelled' | string;
  session_id?: string;
}

/** Any frame with a `type` this module does not model; kept, never dropped. */
export interface UnknownFrame {
  type: 'unknown';
  /** The frame's own type field, if it had one. */
  wireType: string | undefined;
  raw: Record<string, unknown>;
}

export type OutputFrame =
  | SystemInitFrame
  | SystemOtherFrame
  | AssistantFrame
  | UserFrame
  | StreamEventFrame
  | RateLimitEventFrame
  | ResultFrame
  | ControlRequestFrame
  | ControlResponseFrame
  | CommandLifecycleFrame
  | UnknownFrame;
