/**
 * The app-server's stdout, one line at a time: pure, total, never throws. A line that is not a
 * JSON-RPC message gives `malformed` with a short excerpt for the log.
 */
import { excerpt, isObject, readJsonObject } from '../../common/json-line.js';
import type { RequestId, RpcError } from './wire.js';

export type ParsedMessage =
  | { kind: 'response'; id: RequestId; result: unknown }
  | { kind: 'error-response'; id: RequestId; error: RpcError }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'request'; id: RequestId; method: string; params: unknown }
  | { kind: 'blank' }
  | { kind: 'malformed'; reason: string; excerpt: string };

const isId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

function rpcError(v: unknown): RpcError | undefined {
  if (!isObject(v) || typeof v.message !== 'string') return undefined;
  return {
    code: typeof v.code === 'number' ? v.code : 0,
    message: v.message,
    ...(v.data === undefined ? {} : { data: v.data }),
  };
}

export function parseMessage(line: string): ParsedMessage {
  try {
    const read = readJsonObject(line);
    if (read.kind !== 'object') return read;
    const { value, trimmed } = read;
    const { id, method } = value;
    if (typeof method === 'string') {
      if (id === undefined || id === null) return { kind: 'notification', method, params: value.params };
      if (!isId(id))
        return {
          kind: 'malformed',
          reason: 'request with an id that is not a string or number',
          excerpt: excerpt(trimmed),
        };
      return { kind: 'request', id, method, params: value.params };
    }
    if (!isId(id)) return { kind: 'malformed', reason: 'neither a method nor an id', excerpt: excerpt(trimmed) };
    if ('error' in value) {
      const error = rpcError(value.error);
      if (!error) return { kind: 'malformed', reason: 'error response without a message', excerpt: excerpt(trimmed) };
      return { kind: 'error-response', id, error };
    }
    if (!('result' in value))
      return { kind: 'malformed', reason: 'response without result or error', excerpt: excerpt(trimmed) };
    return { kind: 'response', id, result: value.result };
  } catch (err) {
    // Unreachable in practice (JSON.parse and the checks are guarded); kept so the parser is total.
    return { kind: 'malformed', reason: `parser error: ${String(err)}`, excerpt: excerpt(String(line)) };
  }
}
