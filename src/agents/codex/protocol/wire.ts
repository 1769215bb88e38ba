/**
 * The app-server's transport: JSON-RPC 2.0 without the "jsonrpc" field, one JSON object per line on
 * stdin/stdout (shared/codex-notes.md, codex-rs/app-server/README.md). Requests carry an id and get
 * a response with the same id; notifications carry none. The server sends requests too (approvals),
 * which the client answers with the request's id.
 */
import type { RequestId } from './generated/index.js';

export type { RequestId };

export interface RpcRequest {
  id: RequestId;
  method: string;
  params?: unknown;
}

export interface RpcNotification {
  method: string;
  params?: unknown;
}

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcResponse = { id: RequestId; result: unknown } | { id: RequestId; error: RpcError };

/** JSON-RPC's own error codes, as the app-server uses them. */
export const RPC_ERRORS = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  /** The server's request queue is full ("Server overloaded; retry later."). */
  overloaded: -32001,
} as const;

/** One line on the wire, newline included. */
export function encodeLine(msg: RpcRequest | RpcNotification | RpcResponse): string {
  return `${JSON.stringify(msg)}\n`;
}
