/**
 * The Agent Client Protocol as Rudder speaks it: the stable v1 types of @agentclientprotocol/sdk
 * (pinned 2.4.0, the source of truth for the wire) and the extensions seen on real agents, which
 * the SDK does not type. Facts: shared/acp-notes.md.
 */
import { createRequire } from 'node:module';
import type * as acp from '@agentclientprotocol/sdk';

export type {
  AgentCapabilities,
  ClientCapabilities,
  ContentBlock,
  InitializeResponse,
  LoadSessionResponse,
  NewSessionResponse,
  PermissionOption as AcpPermissionOption,
  PermissionOptionKind,
  PlanEntry,
  PromptResponse,
  ReadTextFileRequest,
  ReadTextFileResponse,
  RequestError,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionModeState,
  SessionNotification,
  SessionUpdate,
  StopReason,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolKind,
  WriteTextFileRequest,
} from '@agentclientprotocol/sdk';

let sdk: typeof acp | undefined;

/**
 * The ACP SDK's runtime, loaded when an ACP agent is first spoken to: a gateway without an ACP backend never holds
 * its modules (several MB of schemas).
 */
export function acpSdk(): typeof acp {
  sdk ??= createRequire(import.meta.url)('@agentclientprotocol/sdk') as typeof acp;
  return sdk;
}

/** A JSON-RPC error the SDK answers the agent with. */
export function acpRequestError(code: number, message: string): acp.RequestError {
  return new (acpSdk().RequestError)(code, message);
}

/** The JSON-RPC answer to a method Rudder does not serve. */
export function methodNotFound(method: string): acp.RequestError {
  return acpSdk().RequestError.methodNotFound(method);
}

/** Rudder as an ACP client (initialize's clientInfo). */
export const CLIENT_INFO = { name: 'rudder', title: 'Rudder', version: '0.1.0' } as const;

/** JSON-RPC error codes ACP gives a meaning to. */
export const ACP_ERRORS = {
  /** The agent needs `authenticate` (a login) before it can work. */
  authRequired: -32000,
  /** The session (or another resource) does not exist. */
  resourceNotFound: -32002,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/**
 * Steering (Claude's adapter 0.101): a message handed to the running turn. Advertised as
 * `initialize._meta.steering.supported`; `idleBehavior: "promptRequired"` makes an idle session
 * refuse instead of starting a turn of its own (which would run with no `session/prompt` to end it).
 */
export const STEERING_METHOD = '_session/steering';

export interface SteeringRequest {
  sessionId: string;
  prompt: acp.ContentBlock[];
  _meta?: { steering?: { idleBehavior?: 'promptRequired' | 'startNewTurn' } };
}

export type SteeringResponse =
  /** The running turn took it in: the model sees it this turn. */
  | { outcome: 'injected' }
  /** No turn was running: the agent started one for it (only without idleBehavior promptRequired). */
  | { outcome: 'startedNewTurn' }
  /** No turn was running and the client asked for this answer: send it as a prompt. */
  | { outcome: 'promptRequired'; reason?: string };

/** Where an agent advertises steering: the initialize answer's top-level `_meta`. */
export function offersSteering(init: acp.InitializeResponse | undefined): boolean {
  const meta = init?._meta as { steering?: { supported?: unknown } } | null | undefined;
  return meta?.steering?.supported === true;
}

/** Token counts a prompt's answer may carry (unstable `usage`; Claude's adapter and Copilot send it). */
export interface PromptUsage {
  inputTokens?: number;
  outputTokens?: number;
  cachedReadTokens?: number;
  cachedWriteTokens?: number;
  totalTokens?: number;
}

/** Gemini CLI's form of the same, in the answer's `_meta.quota`. */
export interface GeminiQuota {
  token_count?: { input_tokens?: number; output_tokens?: number };
}
