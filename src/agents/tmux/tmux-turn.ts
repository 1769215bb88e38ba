/**
 * One turn of the TUI, followed through its transcript entries: assistant blocks stream out as
 * events as they are written, tool uses are remembered (a permission prompt names the pending
 * one), and the result is assembled when the turn ends.
 */
import { RudderError } from '../../errors.js';
import { isRateLimitText } from '../claude/frames-to-events.js';
import { TurnBase } from '../common/turn-base.js';
import type { TurnResult, Usage } from '../session.js';
import type { PendingToolUse } from './menus/permission-relay.js';
import type { TranscriptEntry } from './transcript/transcript-entries.js';

export type TurnEnd =
  | { kind: 'done'; durationMs?: number; reason: string }
  | { kind: 'interrupted'; reason: string }
  | { kind: 'denied' };

export class TmuxTurn extends TurnBase {
  readonly startedAt = Date.now();
  /** When the turn's own input showed up in the transcript: a quiet pane before then says nothing about it. */
  arrivedAt: number | undefined;
  /** Followed again after a restart: the first prompt the transcript is read from is this turn's own. */
  adoptsPrompt = false;
  /** The person chose "No" at a permission prompt: the TUI stops the turn there. */
  denied: { toolName: string; detail: string } | undefined;
  /** Epoch ms of the last transcript entry of this turn. */
  lastEntryAt = Date.now();
  steered = 0;
  private readonly texts: string[] = [];
  /** Texts since the last tool result: the turn's final answer. */
  private finalTexts: string[] = [];
  private readonly usage: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
  };
  private readonly messages = new Set<string>();
  private readonly toolUses = new Map<string, PendingToolUse>();
  private pending: PendingToolUse | undefined;
  private apiError: { error: string; text: string } | undefined;

  /** Its input is in the transcript; the quiet-end clock starts now, not when the turn was begun. */
  arrive(): this {
    this.arrivedAt = this.lastEntryAt = Date.now();
    return this;
  }

  /**
   * Lacking an end marker, the turn is over when the pane has looked idle and the transcript been
   * silent for quietMs, both counted from its arrival at the earliest: a message typed after a
   * respawn or a long wait must not inherit an idle that began before it.
   */
  quiet(readySince: number | undefined, now: number, quietMs: number): boolean {
    if (this.arrivedAt === undefined || readySince === undefined) return false;
    return now - Math.max(readySince, this.arrivedAt) > quietMs && now - this.lastEntryAt > quietMs;
  }

  get arrived(): boolean {
    return this.arrivedAt !== undefined;
  }

  toolUseCount(): number {
    return this.toolUses.size;
  }

  ownsToolUse(id: string): boolean {
    return this.toolUses.has(id);
  }

  /** The last tool use without a result: what a permission prompt on screen is about. */
  pendingToolUse(): PendingToolUse | undefined {
    return this.pending;
  }

  hasApiError(): boolean {
    return this.apiError !== undefined;
  }

  /** Applies one content entry; true when it ends the turn by itself (an API error). */
  take(entry: TranscriptEntry): boolean {
    this.lastEntryAt = Date.now();
    if (entry.kind === 'assistant') {
      const first = !this.messages.has(entry.messageId);
      this.messages.add(entry.messageId);
      // Every block of one message repeats the message's usage: count it once.
      if (first && entry.usage)
        for (const k of Object.keys(this.usage) as (keyof Usage)[]) this.usage[k] += entry.usage[k];
      for (const b of entry.blocks) {
        if (b.type === 'text') {
          this.emit({ type: 'text-delta', text: this.texts.length ? `\n\n${b.text}` : b.text });
          this.emit({ type: 'text', text: b.text });
          this.texts.push(b.text);
          this.finalTexts.push(b.text);
        } else if (b.type === 'tool_use') {
          this.pending = { id: b.id, name: b.name, input: b.input };
          this.toolUses.set(b.id, this.pending);
          this.emit({ type: 'tool-use', id: b.id, name: b.name, input: b.input });
        }
      }
      if (entry.apiError)
        this.apiError = {
          error: entry.apiError,
          text: entry.blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''),
        };
      return entry.apiError !== undefined;
    }
    if (entry.kind === 'tool-result') {
      if (this.pending?.id === entry.toolUseId) this.pending = undefined;
      this.finalTexts = [];
      this.emit({ type: 'tool-result', toolUseId: entry.toolUseId, isError: entry.isError, excerpt: entry.excerpt });
    }
    return false;
  }

  /** The result of a turn that ended; inputIds and sessionId are the session's to tell. */
  buildResult(end: TurnEnd, sessionId: string | undefined): TurnResult {
    let text = (this.finalTexts.length ? this.finalTexts : this.texts).join('\n\n');
    if (end.kind === 'denied' && this.denied) {
      const detail = this.denied.detail ? `: ${this.denied.detail}` : '';
      const note =
        `(The person denied ${this.denied.toolName}${detail}. ` + 'The agent stopped and waits for the next message.)';
      text = text ? `${text}\n\n${note}` : note;
    }
    return {
      text,
      sessionId,
      usage: { ...this.usage },
      // The TUI reports cost only when it exits: unknown per turn, never 0.
      costUsd: undefined,
      durationMs: end.kind === 'done' && end.durationMs ? end.durationMs : Date.now() - this.startedAt,
      numTurns: this.messages.size,
      terminalReason: end.kind === 'denied' ? 'permission_denied' : end.reason,
      isError: end.kind === 'interrupted',
      interrupted: end.kind === 'interrupted',
      inputIds: this.inputIds(),
      steered: this.steered,
    };
  }

  /** The typed error of a turn that ended on an API error. */
  apiFailure(context: Record<string, unknown>): RudderError {
    const e = this.apiError!;
    const limited = e.error === 'rate_limit' || isRateLimitText(e.text);
    return new RudderError(limited ? 'AGENT_RATE_LIMITED' : 'AGENT_API_ERROR', e.text.slice(0, 300), {
      ...context,
      unanswered: this.inputIds(),
    });
  }
}
