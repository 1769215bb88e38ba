/**
 * A turn's `session/update` notifications as the shared TurnEvents, so the web timeline and the chat
 * cards draw an ACP turn as they draw a Claude or a Codex one:
 *   agent_message_chunk      → text-delta; a completed message (the next other update, a new
 *                              messageId, the turn's end) → text. Claude's informational chunks → status
 *   agent_thought_chunk      → a tool step "Reasoning" whose output is the thought (as Codex's)
 *   tool_call / _update      → tool-use once its input is known (Claude sends an empty one first), then
 *                              tool-result at completed/failed with the content's text (or rawOutput).
 *                              The name is the agent's (Claude's toolName) or the kind's Rudder name
 *                              (execute → Bash {command}, read → Read {file_path}…), the input keeps
 *                              kind, title and locations
 *   plan                     → a tool step "TodoWrite" in Claude's todo shape, one per update
 *   usage_update             → the session's cumulative cost, when the agent reports one
 *   user_message_chunk, available_commands_update, mode/config/session_info updates → nothing
 * Pure (no I/O) and total: a malformed update yields no event and never throws.
 */
import { TOOL_EXCERPT_CHARS, type TurnEvent } from '../session.js';
import type { ToolCallStatus, ToolKind } from './protocol.js';

const bounded = (text: string): string =>
  text.length > TOOL_EXCERPT_CHARS ? `${text.slice(0, TOOL_EXCERPT_CHARS)}…` : text;

const firstLine = (text: string): string => text.trim().split('\n')[0]!.replace(/\*\*/g, '').slice(0, 200);

type Fields = Record<string, unknown>;

const obj = (v: unknown): Fields | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : undefined;

/** A content block's text ('' for any other block). */
const textOf = (content: unknown): string => {
  const text = obj(content)?.text;
  return typeof text === 'string' ? text : '';
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The Rudder name of each ACP tool kind (gateway/steps summarises these by name), and its key field. */
const KIND_TOOLS: Partial<Record<ToolKind, { name: string; key: 'command' | 'file_path' | 'pattern' | 'url' }>> = {
  execute: { name: 'Bash', key: 'command' },
  read: { name: 'Read', key: 'file_path' },
  edit: { name: 'Edit', key: 'file_path' },
  delete: { name: 'Edit', key: 'file_path' },
  move: { name: 'Edit', key: 'file_path' },
  search: { name: 'Grep', key: 'pattern' },
  fetch: { name: 'WebFetch', key: 'url' },
};

/** `/bin/bash -lc 'cmd'`, or Codex's ["/bin/bash", "-lc", cmd]: the command the model asked for. */
export function shellCommand(raw: unknown): string | undefined {
  if (Array.isArray(raw)) {
    const parts = raw.filter((p): p is string => typeof p === 'string');
    const at = parts.findIndex((p) => /^-l?c$/.test(p));
    return at > 0 && /(^|\/)(ba|z|da|)sh$/.test(parts[0]!) ? parts[at + 1] : parts.join(' ') || undefined;
  }
  return str(raw);
}

interface ToolState {
  id: string;
  kind: ToolKind | undefined;
  title: string | undefined;
  name: string | undefined;
  rawInput: unknown;
  locations: unknown[];
  /** tool-use was emitted. */
  shown: boolean;
  ended: boolean;
  contentText: string;
  rawOutput: unknown;
}

function hasInput(raw: unknown): boolean {
  const o = obj(raw);
  return o ? Object.keys(o).length > 0 : raw !== undefined && raw !== null;
}

/** The text of a tool call's content: text blocks, diffs named by path, terminals by id. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => {
      const o = obj(c);
      if (o?.type === 'content') return textOf(o.content);
      if (o?.type === 'diff') return `diff ${String(o.path ?? '')}`;
      if (o?.type === 'terminal') return `[terminal ${String(o.terminalId ?? '')}]`;
      return '';
    })
    .filter(Boolean)
    .join('\n');
}

/** What a tool printed, from rawOutput when the content carries none (Codex, Copilot's detail). */
function outputText(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  const o = obj(raw);
  if (!o) return '';
  for (const k of ['formatted_output', 'aggregated_output', 'output', 'stdout', 'content']) {
    const v = o[k];
    if (typeof v === 'string') return v;
  }
  return '';
}

export class UpdateMapper {
  /** Completed agent messages of the turn, in order; the last is the reply. */
  readonly texts: string[] = [];
  /** The session's cumulative cost in USD as the agent last reported it (undefined: never reported). */
  costUsd: number | undefined;
  private text = '';
  private messageId: string | undefined;
  private thought = '';
  private thoughts = 0;
  private plans = 0;
  private readonly tools = new Map<string, ToolState>();

  map(update: unknown): TurnEvent[] {
    try {
      return this.apply(obj(update) ?? {});
    } catch {
      return [];
    }
  }

  /** The turn ended: whatever is still open (a message, a thought) is completed. */
  finish(): TurnEvent[] {
    return [...this.flushText(), ...this.flushThought()];
  }

  /** The tool a permission request is about, as the tool-use shows it (name and input). */
  describeTool(toolCall: unknown): { id: string; name: string; input: Record<string, unknown> } {
    // Its content is the agent's explanation for the person (Gemini: the directory), not the tool's output.
    const t = this.track({ ...obj(toolCall), content: undefined });
    return { id: t.id, name: this.nameOf(t), input: this.inputOf(t) };
  }

  private apply(u: Fields): TurnEvent[] {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
        return this.chunk(u);
      case 'agent_thought_chunk': {
        this.thought += textOf(u.content);
        return this.flushText();
      }
      case 'tool_call':
      case 'tool_call_update':
        return [...this.flushText(), ...this.flushThought(), ...this.tool(u)];
      case 'plan':
        return [...this.flushText(), ...this.flushThought(), ...this.plan(u.entries)];
      case 'usage_update': {
        const cost = obj(u.cost);
        if (cost && typeof cost.amount === 'number' && String(cost.currency).toUpperCase() === 'USD')
          this.costUsd = cost.amount;
        return [];
      }
      default:
        return [];
    }
  }

  private chunk(u: Fields): TurnEvent[] {
    const text = textOf(u.content);
    if (!text) return [];
    if (obj(obj(u._meta)?.claudeCode)?.kind === 'informational')
      return [...this.flushText(), { type: 'status', message: text }];
    const id = str(u.messageId);
    const out = [...this.flushThought(), ...(id && this.messageId && id !== this.messageId ? this.flushText() : [])];
    this.messageId = id ?? this.messageId;
    this.text += text;
    out.push({ type: 'text-delta', text });
    return out;
  }

  private flushText(): TurnEvent[] {
    const text = this.text;
    this.text = '';
    this.messageId = undefined;
    if (!text.trim()) return [];
    this.texts.push(text);
    return [{ type: 'text', text }];
  }

  private flushThought(): TurnEvent[] {
    const thought = this.thought.trim();
    this.thought = '';
    if (!thought) return [];
    const id = `thought-${++this.thoughts}`;
    return [
      { type: 'tool-use', id, name: 'Reasoning', input: { summary: firstLine(thought) } },
      { type: 'tool-result', toolUseId: id, isError: false, excerpt: bounded(thought) },
    ];
  }

  private track(u: Fields): ToolState {
    const id = str(u.toolCallId) ?? `tool-${this.tools.size + 1}`;
    let t = this.tools.get(id);
    if (!t) {
      t = {
        id,
        kind: undefined,
        title: undefined,
        name: undefined,
        rawInput: undefined,
        locations: [],
        shown: false,
        ended: false,
        contentText: '',
        rawOutput: undefined,
      };
      this.tools.set(id, t);
    }
    if (typeof u.kind === 'string') t.kind = u.kind as ToolKind;
    t.title = str(u.title) ?? t.title;
    const named = str(u.name) ?? str(obj(obj(u._meta)?.claudeCode)?.toolName);
    if (named) t.name = named;
    if (hasInput(u.rawInput)) t.rawInput = u.rawInput;
    if (Array.isArray(u.locations) && u.locations.length) t.locations = u.locations;
    if (Array.isArray(u.content)) t.contentText = contentText(u.content) || t.contentText;
    if (u.rawOutput !== undefined && u.rawOutput !== null) t.rawOutput = u.rawOutput;
    return t;
  }

  private tool(u: Fields): TurnEvent[] {
    const t = this.track(u);
    const status = u.status as ToolCallStatus | undefined;
    const done = status === 'completed' || status === 'failed';
    const out: TurnEvent[] = [];
    // Claude's adapter announces a call with an empty input and fills it in the next update.
    if (!t.shown && (hasInput(t.rawInput) || done || status === 'in_progress' || t.locations.length)) {
      t.shown = true;
      out.push({ type: 'tool-use', id: t.id, name: this.nameOf(t), input: this.inputOf(t) });
    }
    if (done && !t.ended) {
      t.ended = true;
      const excerpt = t.contentText || outputText(t.rawOutput);
      out.push({ type: 'tool-result', toolUseId: t.id, isError: status === 'failed', excerpt: bounded(excerpt) });
    }
    return out;
  }

  private nameOf(t: ToolState): string {
    return t.name ?? (t.kind && KIND_TOOLS[t.kind]?.name) ?? t.title ?? 'Tool';
  }

  private inputOf(t: ToolState): Record<string, unknown> {
    const raw = obj(t.rawInput) ?? (t.rawInput === undefined ? {} : { value: t.rawInput });
    const input: Record<string, unknown> = { ...raw };
    const key = t.kind ? KIND_TOOLS[t.kind]?.key : undefined;
    const first = obj(t.locations[0]);
    if (key === 'command') input.command = shellCommand(raw.command) ?? str(raw.cmd) ?? t.title ?? '';
    else if (key === 'file_path' && input.file_path === undefined)
      input.file_path = str(raw.path) ?? str(raw.file_path) ?? str(first?.path) ?? t.title;
    else if (key && input[key] === undefined && t.title) input[key] = t.title;
    if (t.kind) input.kind = t.kind;
    if (t.title) input.title = t.title;
    if (t.locations.length) input.locations = t.locations;
    return input;
  }

  private plan(entries: unknown): TurnEvent[] {
    if (!Array.isArray(entries)) return [];
    const todos = entries.map((e) => ({
      content: String(obj(e)?.content ?? ''),
      status: String(obj(e)?.status ?? ''),
    }));
    const id = `plan-${++this.plans}`;
    const mark: Record<string, string> = { pending: '☐', in_progress: '▶', completed: '☑' };
    return [
      { type: 'tool-use', id, name: 'TodoWrite', input: { todos } },
      {
        type: 'tool-result',
        toolUseId: id,
        isError: false,
        excerpt: bounded(todos.map((t) => `${mark[t.status] ?? '·'} ${t.content}`).join('\n')),
      },
    ];
  }
}
