/**
 * A turn's steps: the one model of "what the agent is doing" that every surface renders — the
 * web app's timeline, a chat channel's progress card, the history API. Built once, in the gateway,
 * from the backend-neutral TurnEvents, persisted as it happens and published on the bus as
 * `step` and `turn` events. A surface never needs a backend's internals to draw a turn.
 *
 * This file is the contract: plain data, no imports, so the web front end can import its types.
 */

/** Bounds on what a step carries, so a chatty tool cannot bloat the store or a phone. */
export const STEP_LIMITS = {
  /** Each string field of a permission request's input: a person approves what they can read whole. */
  permissionInputField: 100_000,
  /** A tool's output excerpt, in characters (the rest is cut and `outputTruncated` set). */
  output: 4000,
  /** Each string field of a tool's input (an Edit's old/new string, a Write's content). */
  inputField: 8000,
  /** The one-line summary of a tool call or a permission request. */
  summary: 300,
  /** The text of a steered message shown at the point it was taken in. */
  steerText: 1000,
} as const;

export type StepKind = 'text' | 'tool' | 'steer' | 'permission' | 'notice';

interface StepBase {
  /** `<turnId>:<index>`; stable across updates of the same step. */
  id: string;
  turnId: string;
  conversationId: string;
  /** Position in the turn, from 0, in the order things happened. */
  index: number;
  /** When the step began, epoch ms. */
  at: number;
}

/** A text block the agent completed (between tools, or its answer). */
export interface TextStep extends StepBase {
  kind: 'text';
  text: string;
  /** The turn ended (stopped, crashed) while this block was still streaming: what arrived so far. */
  partial?: boolean;
  /** This block is the turn's final reply (also delivered as the reply): a timeline may fold it into the reply. */
  final?: boolean;
}

export type ToolStatus = 'running' | 'ok' | 'error';

/** One tool call, from its start to its result. */
export interface ToolStep extends StepBase {
  kind: 'tool';
  toolUseId: string;
  /** The tool's name as the agent calls it: Bash, Edit, Read, Grep, mcp__x__y… */
  name: string;
  /** One line: the command, the path, the pattern; else a short form of the input. */
  summary: string;
  /** The input, each string field bounded by STEP_LIMITS.inputField (an Edit's old_string/new_string make its diff). */
  input: Record<string, unknown>;
  status: ToolStatus;
  /** The tool's output (or error text), bounded by STEP_LIMITS.output. */
  output?: string;
  outputTruncated?: boolean;
  /** When the result came, epoch ms (duration = endedAt - at). */
  endedAt?: number;
  /** A stop the person asked for ended it: its output is what the agent was told about the stop, not the tool's. */
  stopped?: boolean;
}

/** A message the person sent mid-turn, at the point the agent took it in. */
export interface SteerStep extends StepBase {
  kind: 'steer';
  messageId: string;
  text: string;
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

/** The agent asked to use a tool and waits for the person. */
export interface PermissionStep extends StepBase {
  kind: 'permission';
  requestId: string;
  toolName: string;
  summary: string;
  /** The whole input, unless a field passed STEP_LIMITS.permissionInputField (then `inputCut`). */
  input: Record<string, unknown>;
  /** Part of the input was too long to carry: it must not be approved from what is shown. */
  inputCut?: boolean;
  description?: string;
  options: PermissionOption[];
  /** open: waiting; answered: someone chose; withdrawn: the turn ended first (it can no longer be answered). */
  status: 'open' | 'answered' | 'withdrawn';
  answer?: { optionId: string; label: string; by: string };
  endedAt?: number;
}

export type NoticeCode = 'stopped' | 'failed' | 'agent-status' | 'rerun' | 'rate-limited';

/** Something the person should know about the turn: it was stopped, failed, is retried, waits. */
export interface NoticeStep extends StepBase {
  kind: 'notice';
  code: NoticeCode;
  text: string;
  /** A notice that updates in place (the API's retries): a later status with the same key replaces its text. */
  key?: string;
}

export type Step = TextStep | ToolStep | SteerStep | PermissionStep | NoticeStep;

/** running until it ends; then how it ended. */
export type TurnStatus = 'running' | 'answered' | 'stopped' | 'failed';

/** One model's share of a turn's usage. */
export interface ModelUsageView {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** USD; null when not reported. */
  costUsd: number | null;
}

/** What a turn used, as its backend reported at its end (the "Done" line shows it). */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input read from the prompt cache. */
  cacheReadTokens: number;
  /** Input written to the prompt cache. */
  cacheCreationTokens: number;
  /** USD; null when the backend reports no cost (Codex, the terminal backend): "cost unknown", never 0. */
  costUsd: number | null;
  /** By model name, when the backend names them. */
  models: Record<string, ModelUsageView> | null;
  /** How long the agent says it worked, ms (the turn's own times say how long it took end to end). */
  durationMs: number;
}

/** A turn without its steps: what a `turn` event carries. */
export interface TurnSummary {
  id: string;
  conversationId: string;
  status: TurnStatus;
  startedAt: number;
  endedAt?: number;
  /** The messages this turn covers, in the order it took them in (grows as steers are taken in). */
  inputIds: string[];
  /** How the turn failed, when it did (a stable error code from src/errors.ts). */
  error?: { code: string; message: string };
  stepCount: number;
  /** What it used and cost; set once it ended with a result. */
  usage?: TurnUsage;
}

/** A turn with its steps: what the history API returns and a surface draws. */
export interface TurnView extends TurnSummary {
  steps: Step[];
}

/** The data of a bus `step` event: the step as it is now (a running tool is sent again when it ends). */
export interface StepEventData {
  step: Step;
}

/** The data of a bus `turn` event: sent when a turn starts and when it ends. */
export interface TurnEventData {
  turn: TurnSummary;
}
