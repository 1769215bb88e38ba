/**
 * The stdout line parser: pure, total, never throws. A malformed line gives a `malformed`
 * result with a short excerpt for the log; frames with an unmodelled type become `unknown`.
 */
import { excerpt, isObject, readJsonObject } from '../../common/json-line.js';
import type { OutputFrame } from './output.js';

export type ParsedLine =
  | { kind: 'frame'; frame: OutputFrame }
  | { kind: 'blank' }
  | { kind: 'malformed'; reason: string; excerpt: string };

const KNOWN = new Set([
  'system',
  'assistant',
  'user',
  'stream_event',
  'rate_limit_event',
  'result',
  'control_request',
  'control_response',
  'command_lifecycle',
]);

/** Checks the fields the session relies on, per frame type; returns a reason when one is missing. */
function shapeProblem(o: Record<string, unknown>): string | undefined {
  switch (o.type) {
    case 'system':
      if (typeof o.subtype !== 'string') return 'system frame without subtype';
      if (o.subtype === 'init' && typeof o.session_id !== 'string') return 'init frame without session_id';
      return undefined;
    case 'assistant':
    case 'user':
      return isObject(o.message) ? undefined : `${o.type} frame without message`;
    case 'result':
      return typeof o.is_error === 'boolean' ? undefined : 'result frame without boolean is_error';
    case 'control_request':
      return typeof o.request_id === 'string' && isObject(o.request)
        ? undefined
        : 'control_request without request_id/request';
    case 'control_response':
      return isObject(o.response) ? undefined : 'control_response without response';
    case 'command_lifecycle':
      return typeof o.command_uuid === 'string' && typeof o.state === 'string'
        ? undefined
        : 'command_lifecycle without command_uuid/state';
    case 'rate_limit_event':
      return isObject(o.rate_limit_info) ? undefined : 'rate_limit_event without rate_limit_info';
    case 'stream_event':
      return isObject(o.event) ? undefined : 'stream_event without event';
    default:
      return undefined;
  }
}

export function parseLine(line: string): ParsedLine {
  try {
    const read = readJsonObject(line);
    if (read.kind !== 'object') return read;
    const { value, trimmed } = read;
    const type = value.type;
    if (typeof type !== 'string' || !KNOWN.has(type)) {
      return {
        kind: 'frame',
        frame: { type: 'unknown', wireType: typeof type === 'string' ? type : undefined, raw: value },
      };
    }
    const problem = shapeProblem(value);
    if (problem) return { kind: 'malformed', reason: problem, excerpt: excerpt(trimmed) };
    return { kind: 'frame', frame: value as unknown as OutputFrame };
  } catch (err) {
    // Unreachable in practice (JSON.parse and the checks are guarded); kept so the parser is total.
    return { kind: 'malformed', reason: `parser error: ${String(err)}`, excerpt: excerpt(String(line)) };
  }
}

/** Splits a byte stream into lines; feed chunks, get complete lines. Bounded: an over-long line is cut and reported. */
export class LineSplitter {
  private buf = '';
  /** Where the newline search resumes, so a long line arriving in many chunks is scanned once. */
  private scanFrom = 0;
  private readonly decoder = new TextDecoder('utf-8');
  constructor(private readonly maxLine = 64 * 1024 * 1024) {}

  push(chunk: Uint8Array | string): { lines: string[]; overflow: boolean } {
    this.buf += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    const lines: string[] = [];
    let start = 0;
    let nl: number;
    while ((nl = this.buf.indexOf('\n', Math.max(start, this.scanFrom))) >= 0) {
      lines.push(this.buf.slice(start, nl));
      start = nl + 1;
      this.scanFrom = 0;
    }
    if (start > 0) this.buf = this.buf.slice(start);
    this.scanFrom = this.buf.length;
    let overflow = false;
    if (this.buf.length > this.maxLine) {
      lines.push(this.buf);
      this.buf = '';
      this.scanFrom = 0;
      overflow = true;
    }
    return { lines, overflow };
  }

  /** The unterminated tail at end of stream (a frame cut in the middle), if any. */
  end(): string | undefined {
    const rest = this.buf + this.decoder.decode();
    this.buf = '';
    this.scanFrom = 0;
    return rest.length ? rest : undefined;
  }
}
