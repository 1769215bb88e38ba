/**
 * The session transcript the interactive CLI writes (`~/.claude/projects/<cwd>/<session>.jsonl`),
 * as typed entries. Source of truth: the lines 2.1.332 writes, one JSON object per line:
 *
 *   {"type":"user","message":{"content":"text"},"promptSource":"typed"|"queued",...}  a prompt
 *   {"type":"user","message":{"content":[{"type":"tool_result",...}]}}               a tool result
 *   {"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user..."}]}}
 *   {"type":"assistant","message":{"id","content":[one block],"usage"},"isApiErrorMessage"?,"error"?}
 *   {"type":"system","subtype":"turn_duration","durationMs":N}                       a turn ended
 *   {"type":"queue-operation","operation":"enqueue"|"dequeue"|"remove"|"popAll","content"?,"reason"?}
 *
 * Large pastes reach the transcript wrapped as `<pasted_content id="...">\n...\n</pasted_content ...>`.
 * The parser is pure and never throws: a line it cannot read becomes `other`.
 */
import { TOOL_EXCERPT_CHARS } from '../../session.js';

export interface TranscriptUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

export type AssistantBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'other' };

export type TranscriptEntry =
  /** A message the person (or Rudder) submitted; `source` is how it entered: typed now, or queued while busy. */
  | { kind: 'prompt'; uuid: string; text: string; source: string | undefined }
  | { kind: 'tool-result'; toolUseId: string; isError: boolean; excerpt: string }
  /** `[Request interrupted by user]` / `... for tool use]`: an Escape or a "No" at a permission prompt. */
  | { kind: 'interrupted'; forToolUse: boolean }
  | {
      kind: 'assistant';
      messageId: string;
      blocks: AssistantBlock[];
      apiError: string | undefined;
      usage: TranscriptUsage | undefined;
    }
  | { kind: 'turn-end'; durationMs: number }
  /**
   * The TUI's queue of text typed while busy: enqueue on Enter, remove (absorbed into the turn), dequeue (runs next),
   * popAll (pulled back into the box).
   */
  | { kind: 'queue'; operation: string; content: string | undefined; reason: string | undefined }
  /** A slash command the TUI ran itself (/clear, /model): not a prompt. */
  | { kind: 'command'; text: string }
  | { kind: 'other'; type: string };

const INTERRUPT_PREFIX = '[Request interrupted by user';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) =>
      b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string'
        ? (b as { text: string }).text
        : '',
    )
    .join('\n');
}

function excerpt(content: unknown): string {
  const t = textOf(content);
  return t.length > TOOL_EXCERPT_CHARS ? `${t.slice(0, TOOL_EXCERPT_CHARS)}…` : t;
}

function usageOf(u: unknown): TranscriptUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const r = u as Record<string, unknown>;
  return {
    inputTokens: num(r.input_tokens),
    outputTokens: num(r.output_tokens),
    cacheReadInputTokens: num(r.cache_read_input_tokens),
    cacheCreationInputTokens: num(r.cache_creation_input_tokens),
  };
}

function blockOf(b: unknown): AssistantBlock {
  if (!b || typeof b !== 'object') return { type: 'other' };
  const r = b as Record<string, unknown>;
  if (r.type === 'text' && typeof r.text === 'string') return { type: 'text', text: r.text };
  if (r.type === 'tool_use')
    return {
      type: 'tool_use',
      id: str(r.id) ?? '',
      name: str(r.name) ?? 'tool',
      input: (r.input && typeof r.input === 'object' ? r.input : {}) as Record<string, unknown>,
    };
  return { type: 'other' };
}

function userEntry(d: Record<string, unknown>): TranscriptEntry {
  const message = (d.message ?? {}) as { content?: unknown };
  const content = message.content;
  if (Array.isArray(content)) {
    const result = content.find(
      (b) => b && typeof b === 'object' && (b as { type?: unknown }).type === 'tool_result',
    ) as Record<string, unknown> | undefined;
    if (result)
      return {
        kind: 'tool-result',
        toolUseId: str(result.tool_use_id) ?? '',
        isError: result.is_error === true,
        excerpt: excerpt(result.content),
      };
  }
  const text = textOf(content);
  if (text.startsWith(INTERRUPT_PREFIX)) return { kind: 'interrupted', forToolUse: text.includes('for tool use') };
  if (d.isMeta === true || text.startsWith('<command-name>') || text.startsWith('<local-command'))
    return { kind: 'command', text };
  return { kind: 'prompt', uuid: str(d.uuid) ?? '', text, source: str(d.promptSource) };
}

/** Reads one transcript line; undefined for a blank line. */
export function parseTranscriptLine(line: string): TranscriptEntry | undefined {
  if (!line.trim()) return undefined;
  let d: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { kind: 'other', type: 'not-an-object' };
    d = parsed as Record<string, unknown>;
  } catch {
    return { kind: 'other', type: 'malformed' };
  }
  const type = str(d.type) ?? 'unknown';
  // A subagent's own traffic is not the turn's.
  if (d.isSidechain === true) return { kind: 'other', type };
  switch (type) {
    case 'user':
      return userEntry(d);
    case 'assistant': {
      const message = (d.message ?? {}) as Record<string, unknown>;
      const blocks = Array.isArray(message.content) ? message.content.map(blockOf) : [];
      const apiError = d.isApiErrorMessage === true ? (str(d.error) ?? 'api_error') : undefined;
      return {
        kind: 'assistant',
        messageId: str(message.id) ?? str(d.uuid) ?? '',
        blocks,
        apiError,
        usage: usageOf(message.usage),
      };
    }
    case 'system':
      if (d.subtype === 'turn_duration') return { kind: 'turn-end', durationMs: num(d.durationMs) };
      return { kind: 'other', type: `system/${str(d.subtype) ?? ''}` };
    case 'queue-operation':
      return { kind: 'queue', operation: str(d.operation) ?? '', content: str(d.content), reason: str(d.reason) };
    default:
      return { kind: 'other', type };
  }
}

const PASTED_OPEN = /^\s*<pasted_content id="[^"]*">\n/;
const PASTED_CLOSE = /\n<\/pasted_content id="[^"]*">\s*$/;

/** The text as it was pasted: the TUI's `<pasted_content>` wrapper around a large paste removed. */
export function unwrapPasted(text: string): string {
  const open = PASTED_OPEN.exec(text);
  const close = PASTED_CLOSE.exec(text);
  if (!open || !close || close.index < open[0].length) return text;
  return text.slice(open[0].length, close.index);
}
