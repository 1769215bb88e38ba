/**
 * The one interface every agent backend implements (claude-stream, claude-oneshot, claude-tmux, codex, and the
 * remote session of a project on a node). The lane decides by `capabilities`, never by backend name, and never by
 * whether a method is there: every method is, and a session without a capability refuses the call it gates.
 * The shell every backend shares (listeners, last activity, the running turn, the stop) is common/session-base.ts.
 */
import type { RudderError } from '../errors.js';

/** One message a person sent, as the agent will see it (wrapped as external content by the backend). */
export interface UserInput {
  /** Rudder's message id; results are attributed back to it. */
  id: string;
  text: string;
  /** Who sent it, e.g. "web:owner" or "telegram:12345"; shown inside the wrapper. */
  source?: string;
  /**
   * Rudder's own note about this input (a re-run after a crash or a rate limit), written before it, outside the
   * wrapper.
   */
  note?: string;
  /** The session already holds this text (a turn that failed before answering took it in): only the note is sent. */
  inSession?: boolean;
}

/** A turn's input: usually one message, several when the lane merged them (collect mode). */
export interface TurnInput {
  inputs: UserInput[];
  /** The id the turn is to have (the lane records the turn before it hands it over); a backend makes one without it. */
  turnId?: string;
}

export interface Capabilities {
  /** How a message sent mid-turn reaches the running turn. */
  steer: 'tool-boundary' | 'native' | 'none';
  interrupt: boolean;
  resume: boolean;
  /**
   * The agent has its own context command (the TUI's /clear): `clearContext` clears in place, after the running
   * turn. Without it, /clear releases the session and the next turn starts a new one.
   */
  clearContext: boolean;
  /**
   * The agent has its own model command (the TUI's /model): `setModel` switches in place, after the running turn.
   * Without it, /model releases the session when it is idle and the next one starts on the new model.
   */
  setModel: boolean;
  /**
   * The session's turns run on where Rudder does not (another machine): after a restart of Rudder, a turn that was
   * running is followed again (`reattach`) instead of run again, and a stop of Rudder lets go of it (`detach`).
   */
  reattach: boolean;
}

/** What a backend can do when it has nothing beyond steering, interrupts and resuming. */
export const PLAIN_CAPABILITIES: Omit<Capabilities, 'steer'> = {
  interrupt: true,
  resume: true,
  clearContext: false,
  setModel: false,
  reattach: false,
};

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

/** One model's share of a turn (a turn may call several: a subagent, a fallback model). */
export interface ModelUsage extends Usage {
  /** USD, as the backend reports it; undefined when it reports none. */
  costUsd: number | undefined;
}

export interface TurnResult {
  /** The final assistant text of the turn. */
  text: string;
  sessionId: string | undefined;
  usage: Usage;
  /**
   * Cost of this turn in USD (the CLI reports a per-process cumulative figure; this is the difference).
   * Undefined when the backend reports no cost (Codex, the terminal backend): "cost unknown", never 0.
   */
  costUsd: number | undefined;
  /** This turn's usage per model, when the backend names the models (the CLI's modelUsage). */
  modelUsage?: Record<string, ModelUsage>;
  durationMs: number;
  numTurns: number;
  terminalReason: string | undefined;
  isError: boolean;
  /** True when the turn ended because it was interrupted on request. */
  interrupted: boolean;
  /** Every input this result answers, in the order the agent took them in. */
  inputIds: string[];
  /** How many inputs were folded into the running turn after it started. */
  steered: number;
}

export interface PermissionOption {
  id: string;
  label: string;
  /**
   * Set when choosing it changes more than this request (later prompts are no longer asked): show it beside the label.
   */
  effect?: string;
  /** `allow` runs what was asked, `deny` refuses it (a chat offers only these where it cannot show the input whole). */
  kind?: 'allow' | 'deny';
}

export interface PermissionRequest {
  requestId: string;
  toolName: string;
  input: Record<string, unknown>;
  description?: string;
  /** Options to show the person, in order; for the stream backend just allow/deny. */
  options: PermissionOption[];
}

/**
 * The person's answer to a permission request: one of its options, by id. A backend turns it into its
 * own wire form (Claude's allow/deny, a TUI menu line, Codex's decision); nothing above it does.
 */
export interface PermissionAnswer {
  optionId: string;
  /** Told to the agent with a refusal, where the backend can carry it. */
  message?: string;
}

/** A tool-result event's excerpt holds at most this many characters of the output, then "…". */
export const TOOL_EXCERPT_CHARS = 4000;

export type TurnEvent =
  | { type: 'started'; inputIds: string[] }
  | { type: 'text-delta'; text: string }
  | { type: 'text'; text: string }
  | { type: 'tool-use'; id: string; name: string; input: unknown }
  | { type: 'tool-result'; toolUseId: string; isError: boolean; excerpt: string }
  | { type: 'steer-absorbed'; inputId: string }
  | { type: 'permission'; request: PermissionRequest }
  /**
   * Progress worth showing; with notify, the person is told in the chat (a message waits, a menu
   * could not be answered). inputIds: the messages it is about when not the turn's own (a steer still waiting).
   */
  | {
      type: 'status';
      message: string;
      notify?: boolean;
      inputIds?: string[];
      /** A status with the same key as an earlier one of the turn replaces it: one line that updates (api-retry). */
      key?: string;
    }
  | { type: 'result'; result: TurnResult }
  | { type: 'error'; error: RudderError };

export interface Turn {
  readonly id: string;
  /** Inputs this turn has taken in so far (grows as steers are absorbed). */
  inputIds(): string[];
  /** Every event of the turn, replayed from its start for each new listener; ends after result/error. */
  events(): AsyncIterable<TurnEvent>;
  onEvent(listener: (e: TurnEvent) => void): () => void;
  /**
   * Resolves with the result when the agent produced one (interrupted turns included).
   * Rejects with a RudderError whose context.unanswered lists the inputs not answered
   * (crash, EOF, rate limit, API error, timeout).
   */
  readonly result: Promise<TurnResult>;
}

export type SteerResult =
  | { outcome: 'steered'; turn: Turn }
  /** why: what kept it out of the running turn, when the backend knows (the lane's record says so). */
  | { outcome: 'ran-as-turn'; turn: Turn; why?: string }
  | { outcome: 'process-dead' };

/**
 * A steer's outcome, plus whether anything was written to the agent (known at once, before the
 * outcome) and, when nothing was, why (e.g. the terminal shows a permission prompt).
 */
export type SteerPromise = Promise<SteerResult> & { readonly written: boolean; readonly reason?: string };

export function steerPromise(outcome: Promise<SteerResult>, written: boolean, reason?: string): SteerPromise {
  return Object.assign(outcome, reason === undefined ? { written } : { written, reason });
}

/** A steer decided at once: written unless the outcome is 'process-dead' (then `reason` says why, when known). */
export function steerNow(result: SteerResult, reason?: string): SteerPromise {
  return steerPromise(Promise.resolve(result), result.outcome !== 'process-dead', reason);
}

export type SessionState = 'idle' | 'busy' | 'dead' | 'stopped';

export interface AgentSession {
  /** A name for logs and status (claude-stream, claude-tmux, …); never tested to decide anything. */
  readonly backend: string;
  readonly capabilities: Capabilities;
  readonly conversationId: string;
  sessionId(): string | undefined;
  pid(): number | undefined;
  state(): SessionState;
  /** Epoch ms of the last activity (turn start or end), for the idle reaper. */
  lastActiveAt(): number;
  /** Inputs folded into running turns over the session's life. */
  steeredCount(): number;
  /** The running turn, if any. */
  currentTurn(): Turn | undefined;
  /**
   * Called for every turn the session runs, including turns the agent started on its own for
   * messages it had queued (a steer that ran as the next turn, a message put back by an interrupt).
   * Listening here is how an owner attributes every result to its inputs.
   */
  onTurn(listener: (turn: Turn) => void): () => void;
  /** Starts a turn. Throws AGENT_BUSY when one is already running. */
  startTurn(input: TurnInput): Turn;
  /**
   * Hands a message to the running turn. 'steered': the turn took it in; 'ran-as-turn': it
   * became (part of) the next turn, which the caller consumes (never send the text again);
   * 'process-dead': nothing was written. `.written` says at once whether the text was handed over.
   */
  steer(input: UserInput): SteerPromise;
  /** Stops the running turn; the session survives. cancelQueued also drops steers not yet taken in. */
  interrupt(opts?: { cancelQueued?: boolean }): Promise<void>;
  /** Answers a permission request raised by the running turn. */
  answerPermission(requestId: string, answer: PermissionAnswer): boolean;
  /** Stops the process for good (the session id stays resumable). */
  stop(reason: string): Promise<void>;
  /** With capabilities.clearContext: clears the context with the agent's own command, after the running turn. */
  clearContext(): Promise<void>;
  /**
   * With capabilities.setModel: switches the model with the agent's own command, after the running turn; undefined
   * goes back to the configured one.
   */
  setModel(model: string | undefined): Promise<void>;
  /**
   * With capabilities.reattach: the turn a previous run of Rudder had running, followed again (its events and
   * result arrive as if it had never been left); a turn the agent no longer knows fails as AGENT_CRASHED.
   */
  reattach(turn: { turnId: string; inputIds: string[] }): Turn;
  /**
   * With capabilities.reattach: Rudder stops, the session does not. Its running turn fails here with AGENT_STOPPED
   * (kept open for the next start) and goes on where it runs. Without it, the same as stop.
   */
  detach(reason: string): Promise<void>;
  /**
   * Called when the session can take work again after its agent was out of reach (startTurn threw
   * AGENT_UNREACHABLE); a session whose agent is never out of reach never calls it.
   */
  onReachable(listener: () => void): () => void;
}
