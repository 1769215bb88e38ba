/**
 * A turn's notifications as the shared TurnEvents, so the web timeline and the chat cards draw a
 * Codex turn as they draw a Claude one:
 *   agentMessage deltas      → text-delta; the completed message → text
 *   commandExecution         → tool-use Bash {command, cwd} … tool-result with its output
 *   fileChange               → one tool-use per file (tool-inputs.ts: Write, Edit, MultiEdit with the diff)
 *   mcpToolCall, webSearch…  → tool-use/tool-result under their own names
 *   reasoning summary        → a tool step "Reasoning" whose output is the summary (a page folds it)
 *   turn/plan/updated        → a tool step "TodoWrite" with Claude's todo shape {content, status}
 *   error (willRetry)        → status
 * turn/diff/updated carries the turn's whole diff: kept (the file steps already show each file).
 */
import type { TurnBase } from '../../common/turn-base.js';
import { TOOL_EXCERPT_CHARS } from '../../session.js';
import type { ItemOf, ThreadItem, v2 } from '../protocol/index.js';
import { commandInput, fileChangeCall, type ToolCall } from './tool-inputs.js';

const bounded = (text: string): string =>
  text.length > TOOL_EXCERPT_CHARS ? `${text.slice(0, TOOL_EXCERPT_CHARS)}…` : text;

const firstLine = (text: string): string => text.trim().split('\n')[0]!.replace(/\*\*/g, '').slice(0, 200);

const PLAN_STATUS: Record<v2.TurnPlanStepStatus, string> = {
  pending: 'pending',
  inProgress: 'in_progress',
  completed: 'completed',
};

export interface TurnUsage {
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  outputTokens: number;
  /** Model requests that completed (one thread/tokenUsage/updated each). */
  requests: number;
}

/** What one turn has seen so far, beyond its events. */
export class TurnItems {
  /** Completed agent messages, in order; the last is the turn's reply. */
  readonly texts: string[] = [];
  /** Ids of the turn's commandExecution items (CODEX_TOOL_CALL_ID in each command's environment). */
  readonly commandIds = new Set<string>();
  readonly usage: TurnUsage = {
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: 0,
    requests: 0,
  };
  /** The last `error` notification of the turn. */
  lastError: v2.TurnError | undefined;
  /** The turn's aggregated unified diff (turn/diff/updated). */
  diff: string | undefined;
  private readonly output = new Map<string, string>();
  private readonly fileCalls = new Map<string, ToolCall[]>();
  private readonly changes = new Map<string, v2.FileUpdateChange[]>();
  private plans = 0;

  /** The file changes of a fileChange item, for its approval request. */
  fileChanges(itemId: string): v2.FileUpdateChange[] {
    return this.changes.get(itemId) ?? [];
  }

  handle(method: string, params: unknown, turn: TurnBase): void {
    switch (method) {
      case 'item/agentMessage/delta': {
        const delta = (params as v2.AgentMessageDeltaNotification).delta;
        if (delta) turn.emit({ type: 'text-delta', text: delta });
        return;
      }
      case 'item/started':
        this.started((params as v2.ItemStartedNotification).item, turn);
        return;
      case 'item/completed':
        this.completed((params as v2.ItemCompletedNotification).item, turn);
        return;
      case 'item/commandExecution/outputDelta': {
        const p = params as v2.CommandExecutionOutputDeltaNotification;
        const so = this.output.get(p.itemId) ?? '';
        if (so.length <= TOOL_EXCERPT_CHARS) this.output.set(p.itemId, so + p.delta);
        return;
      }
      case 'turn/plan/updated':
        this.plan(params as v2.TurnPlanUpdatedNotification, turn);
        return;
      case 'turn/diff/updated':
        this.diff = (params as v2.TurnDiffUpdatedNotification).diff;
        return;
      case 'thread/tokenUsage/updated': {
        const last = (params as v2.ThreadTokenUsageUpdatedNotification).tokenUsage.last;
        this.usage.inputTokens += last.inputTokens;
        this.usage.cachedInputTokens += last.cachedInputTokens;
        this.usage.cacheWriteInputTokens += last.cacheWriteInputTokens;
        this.usage.outputTokens += last.outputTokens;
        this.usage.requests++;
        return;
      }
      case 'error': {
        const p = params as v2.ErrorNotification;
        this.lastError = p.error;
        if (p.willRetry) turn.emit({ type: 'status', message: `Codex: ${p.error.message} (retrying)` });
        return;
      }
      case 'model/rerouted': {
        const p = params as v2.ModelReroutedNotification;
        turn.emit({ type: 'status', message: `Codex moved this turn from ${p.fromModel} to ${p.toModel}.` });
        return;
      }
    }
  }

  private started(item: ThreadItem, turn: TurnBase): void {
    switch (item.type) {
      case 'commandExecution':
        this.commandIds.add(item.id);
        turn.emit({ type: 'tool-use', id: item.id, name: 'Bash', input: commandInput(item) });
        return;
      case 'fileChange': {
        const calls = item.changes.map(fileChangeCall);
        this.changes.set(item.id, item.changes);
        this.fileCalls.set(item.id, calls);
        for (const [n, c] of calls.entries()) turn.emit({ type: 'tool-use', id: fileStepId(item.id, n), ...c });
        return;
      }
      case 'mcpToolCall':
        turn.emit({ type: 'tool-use', id: item.id, name: `mcp__${item.server}__${item.tool}`, input: item.arguments });
        return;
      case 'dynamicToolCall':
        turn.emit({ type: 'tool-use', id: item.id, name: item.tool, input: item.arguments });
        return;
      case 'webSearch':
        turn.emit({ type: 'tool-use', id: item.id, name: 'WebSearch', input: { query: item.query } });
        return;
      case 'imageView':
        turn.emit({ type: 'tool-use', id: item.id, name: 'ViewImage', input: { file_path: item.path } });
        return;
      case 'collabAgentToolCall':
        turn.emit({ type: 'tool-use', id: item.id, name: 'Agent', input: { tool: item.tool, prompt: item.prompt } });
        return;
      case 'contextCompaction':
        turn.emit({ type: 'status', message: 'Codex is compacting the conversation history.' });
        return;
      default:
        return;
    }
  }

  private completed(item: ThreadItem, turn: TurnBase): void {
    const result = (toolUseId: string, isError: boolean, excerpt: string) =>
      turn.emit({ type: 'tool-result', toolUseId, isError, excerpt });
    switch (item.type) {
      case 'agentMessage':
        this.texts.push(item.text);
        turn.emit({ type: 'text', text: item.text });
        return;
      case 'commandExecution': {
        const output = bounded(item.aggregatedOutput ?? this.output.get(item.id) ?? '');
        const failed = item.status !== 'completed' || (item.exitCode ?? 0) !== 0;
        result(item.id, failed, item.status === 'declined' ? 'Declined.' : output);
        this.output.delete(item.id);
        return;
      }
      case 'fileChange': {
        const calls = this.fileCalls.get(item.id) ?? item.changes.map(fileChangeCall);
        for (const [n, c] of calls.entries())
          result(fileStepId(item.id, n), item.status !== 'completed', fileResult(item, c));
        return;
      }
      case 'mcpToolCall':
        return result(item.id, item.status !== 'completed', mcpText(item));
      case 'dynamicToolCall': {
        const text = (item.contentItems ?? []).map((c) => (c.type === 'inputText' ? c.text : '')).join('\n');
        return result(item.id, item.success === false, bounded(text));
      }
      case 'webSearch':
      case 'imageView':
      case 'collabAgentToolCall':
        return result(item.id, false, '');
      case 'reasoning': {
        const summary = item.summary.join('\n\n').trim();
        if (summary) summaryStep(turn, item.id, 'Reasoning', summary);
        return;
      }
      case 'plan':
        return summaryStep(turn, item.id, 'Plan', item.text);
      default:
        return;
    }
  }

  private plan(p: v2.TurnPlanUpdatedNotification, turn: TurnBase): void {
    const id = `plan:${p.turnId}:${this.plans++}`;
    const todos = p.plan.map((s) => ({ content: s.step, status: PLAN_STATUS[s.status], activeForm: s.step }));
    turn.emit({
      type: 'tool-use',
      id,
      name: 'TodoWrite',
      input: { todos, ...(p.explanation ? { explanation: p.explanation } : {}) },
    });
    const mark = { pending: '☐', in_progress: '▶', completed: '☑' } as Record<string, string>;
    turn.emit({
      type: 'tool-result',
      toolUseId: id,
      isError: false,
      excerpt: bounded(todos.map((t) => `${mark[t.status] ?? '·'} ${t.content}`).join('\n')),
    });
  }
}

/** A fileChange item's first file keeps the item's id; the others are told apart by their index. */
export function fileStepId(itemId: string, n: number): string {
  return n === 0 ? itemId : `${itemId}#${n}`;
}

function fileResult(item: ItemOf<'fileChange'>, call: ToolCall): string {
  if (item.status === 'declined') return 'Declined.';
  if (item.status === 'failed') return 'The change could not be applied.';
  return `${call.name === 'Write' ? 'Created' : 'Changed'} ${String(call.input.file_path)}`;
}

function mcpText(item: ItemOf<'mcpToolCall'>): string {
  if (item.error) return bounded(item.error.message);
  const content = (item.result?.content ?? []) as Array<{ type?: string; text?: string }>;
  return bounded(content.map((c) => (typeof c.text === 'string' ? c.text : '')).join('\n'));
}

/** A step that is a text (a reasoning summary, a plan): its first line as the input, the whole as the output. */
function summaryStep(turn: TurnBase, id: string, name: string, text: string): void {
  turn.emit({ type: 'tool-use', id, name, input: { summary: firstLine(text) } });
  turn.emit({ type: 'tool-result', toolUseId: id, isError: false, excerpt: bounded(text) });
}
