/**
 * One running turn's steps, built from its TurnEvents. Pure bookkeeping: it returns the steps it
 * added or changed, and the StepLog persists and publishes them.
 */
import type { PermissionRequest, TurnEvent } from '../../agents/session.js';
import { asObject, boundedInput, boundedOutput, boundInput, toolSummary } from './summarize.js';
import {
  type NoticeCode,
  type NoticeStep,
  type PermissionStep,
  STEP_LIMITS,
  type Step,
  type TurnStatus,
  type TurnSummary,
  type TurnUsage,
  type TurnView,
} from './types.js';

type NewStep = Step extends infer S
  ? S extends Step
    ? Omit<S, 'id' | 'turnId' | 'conversationId' | 'index' | 'at'>
    : never
  : never;

export interface TurnEnd {
  status: Exclude<TurnStatus, 'running'>;
  error?: { code: string; message: string };
  /** The final reply's text, to mark the text step that is the reply. */
  finalText?: string;
  /** The inputs the turn answered, when the backend says so (steers included). */
  inputIds?: string[];
  /** What it used and cost, when it ended with a result. */
  usage?: TurnUsage;
}

export class TurnRecord {
  readonly summary: TurnSummary;
  readonly steps: Step[] = [];
  /** Text streamed since the last completed block: kept if the turn ends mid-block. */
  private partial = '';
  private readonly tools = new Map<string, Step & { kind: 'tool' }>();
  readonly permissions = new Map<string, PermissionStep>();
  /** A stop was asked for: a tool that ends in error from now on was ended by it. */
  private stopAsked = false;

  constructor(conversationId: string, turnId: string, inputIds: string[], now = Date.now()) {
    this.summary = {
      id: turnId,
      conversationId,
      status: 'running',
      startedAt: now,
      inputIds: [...inputIds],
      stepCount: 0,
    };
  }

  view(): TurnView {
    return { ...this.summary, stepCount: this.steps.length, steps: [...this.steps] };
  }

  /** Applies one event; returns the steps added or changed. `steerText` looks up a steered message. */
  apply(e: TurnEvent, steerText: (messageId: string) => string | undefined, now = Date.now()): Step[] {
    switch (e.type) {
      case 'text-delta':
        this.partial += e.text;
        return [];
      case 'text':
        this.partial = '';
        return e.text.trim() ? [this.add({ kind: 'text', text: e.text }, now)] : [];
      case 'tool-use':
        return [this.toolStarted(e, now)];
      case 'tool-result':
        return this.toolEnded(e, now);
      case 'steer-absorbed':
        return [this.steered(e.inputId, steerText, now)];
      case 'permission':
        return [this.permissionAsked(e.request, now)];
      case 'status':
        return [this.statusLine(e, now)];
      default:
        return [];
    }
  }

  private toolStarted(e: TurnEvent & { type: 'tool-use' }, now: number): Step {
    const step = this.add(
      {
        kind: 'tool',
        toolUseId: e.id,
        name: e.name,
        summary: toolSummary(e.name, e.input),
        input: boundedInput(e.input),
        status: 'running',
      },
      now,
    ) as Step & { kind: 'tool' };
    this.tools.set(e.id, step);
    return step;
  }

  private toolEnded(e: TurnEvent & { type: 'tool-result' }, now: number): Step[] {
    const step = this.tools.get(e.toolUseId);
    if (!step) return [];
    this.tools.delete(e.toolUseId);
    Object.assign(step, { status: e.isError ? 'error' : 'ok', endedAt: now }, boundedOutput(e.excerpt));
    if (e.isError && this.stopAsked) step.stopped = true;
    return [step];
  }

  /** A message taken into the running turn: one of the turn's inputs from now on. */
  private steered(inputId: string, steerText: (messageId: string) => string | undefined, now: number): Step {
    if (!this.summary.inputIds.includes(inputId)) this.summary.inputIds.push(inputId);
    const text = (steerText(inputId) ?? '').slice(0, STEP_LIMITS.steerText);
    return this.add({ kind: 'steer', messageId: inputId, text }, now);
  }

  private permissionAsked(r: PermissionRequest, now: number): Step {
    const whole = boundInput(asObject(r.input), STEP_LIMITS.permissionInputField);
    const options = r.options.map((o) => ({ id: o.id, label: o.label, ...(o.effect ? { effect: o.effect } : {}) }));
    const step = this.add(
      {
        kind: 'permission',
        requestId: r.requestId,
        toolName: r.toolName,
        summary: toolSummary(r.toolName, r.input),
        input: whole.input,
        ...(whole.cut ? { inputCut: true } : {}),
        ...(r.description ? { description: r.description } : {}),
        options,
        status: 'open',
      },
      now,
    ) as PermissionStep;
    this.permissions.set(r.requestId, step);
    return step;
  }

  /** One line that updates (retrying 3/10: …), not a new step for every attempt. */
  private statusLine(e: TurnEvent & { type: 'status' }, now: number): Step {
    const same = e.key ? this.steps.find((s): s is NoticeStep => s.kind === 'notice' && s.key === e.key) : undefined;
    if (same) {
      same.text = e.message;
      return same;
    }
    return this.add({ kind: 'notice', code: 'agent-status', text: e.message, ...(e.key ? { key: e.key } : {}) }, now);
  }

  answered(requestId: string, answer: PermissionStep['answer'] & object, now = Date.now()): Step[] {
    const step = this.permissions.get(requestId);
    if (step?.status !== 'open') return [];
    Object.assign(step, { status: 'answered', answer, endedAt: now });
    return [step];
  }

  /** The person asked to stop the turn: the tools it cuts off are marked as stopped, not failed. */
  stopping(): void {
    this.stopAsked = true;
  }

  notice(code: NoticeCode, text: string, now = Date.now()): Step[] {
    return [this.add({ kind: 'notice', code, text }, now)];
  }

  /** Closes the turn: keeps a half-streamed block, ends tools and requests left open, marks the reply. */
  end(end: TurnEnd, now = Date.now()): Step[] {
    const changed: Step[] = [];
    if (this.partial.trim()) changed.push(this.add({ kind: 'text', text: this.partial, partial: true }, now));
    this.partial = '';
    for (const step of this.tools.values()) {
      Object.assign(step, {
        status: 'error',
        endedAt: now,
        ...(end.status === 'stopped' && this.stopAsked ? { stopped: true } : {}),
        output:
          step.output ??
          (end.status === 'stopped' ? 'Stopped before it finished.' : 'The turn ended before this tool finished.'),
      });
      changed.push(step);
    }
    this.tools.clear();
    for (const step of this.permissions.values()) {
      if (step.status !== 'open') continue;
      Object.assign(step, { status: 'withdrawn', endedAt: now });
      changed.push(step);
    }
    const last = [...this.steps].reverse().find((s) => s.kind === 'text');
    if (
      end.status === 'answered' &&
      last?.kind === 'text' &&
      !last.partial &&
      end.finalText !== undefined &&
      last.text.trim() === end.finalText.trim()
    ) {
      last.final = true;
      changed.push(last);
    }
    if (end.inputIds)
      for (const id of end.inputIds) if (!this.summary.inputIds.includes(id)) this.summary.inputIds.push(id);
    Object.assign(
      this.summary,
      { status: end.status, endedAt: now, stepCount: this.steps.length },
      end.error ? { error: end.error } : {},
      end.usage ? { usage: end.usage } : {},
    );
    return changed;
  }

  private add(fields: NewStep, now: number): Step {
    const index = this.steps.length;
    const step = {
      ...fields,
      id: `${this.summary.id}:${index}`,
      turnId: this.summary.id,
      conversationId: this.summary.conversationId,
      index,
      at: now,
    } as Step;
    this.steps.push(step);
    this.summary.stepCount = this.steps.length;
    return step;
  }
}
