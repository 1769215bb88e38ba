/**
 * A turn's progress card, composed from its steps (gateway/steps) once for every channel: a header
 * with the step count and elapsed time, the current step, the last few steps and the queue. Pure:
 * the same turn at the same moment gives the same card. Channels only render the Markdown.
 */
import type { ButtonView, CardView } from '../../channels/channel.js';
import { code, oneLine } from '../markdown.js';
import type { Step, TurnView } from '../steps/types.js';

/** Finished steps listed under the current one; older ones are counted, not listed. */
export const RECENT_STEPS = 4;
/** A step's one-line summary in a card, in characters. */
const LINE_CHARS = 120;
/** Text the agent wrote between tools, as shown in a card. */
const TEXT_CHARS = 240;
/** The tail of the text being streamed, when the platform shows no draft of it. */
const STREAM_CHARS = 300;

export type TextMode = 'card' | 'messages' | 'final-only';

export interface CardInput {
  now: number;
  /** Messages waiting in the conversation's queue. */
  queued: number;
  textMode: TextMode;
  /** Text streamed so far in the block being written, when the card (not a draft) shows it. */
  streaming?: string;
  /** The Stop button's data. */
  stopData?: string;
}

/** "12s", "3m12s", "1h02m". */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Agent prose in a card: one line, with no code span or fence to leave open when it is cut. */
function prose(text: string, n: number): string {
  return oneLine(text.replace(/`/g, "'"), n);
}

/** The steps a card shows and counts: the final reply is sent on its own, and with text final-only so is all text. */
export function visibleSteps(turn: TurnView, textMode: TextMode): Step[] {
  return turn.steps.filter((s) => s.kind !== 'text' || (!s.final && textMode !== 'final-only'));
}

function toolLine(s: Step & { kind: 'tool' }, now: number, asking: boolean): string {
  const what = `**${s.name}** ${code(oneLine(s.summary, LINE_CHARS))}`;
  // A tool whose permission request is open has not started: it waits, its time does not run.
  if (s.status === 'running' && asking) return `⏸ ${what} · waiting for approval`;
  if (s.status === 'running') return `▶️ ${what} · ${elapsed(now - s.at)}`;
  const took = s.endedAt ? ` (${elapsed(s.endedAt - s.at)})` : '';
  return `${s.status === 'ok' ? '✓' : '✗'} ${what}${took}`;
}

/** A running tool the agent asked permission for, still unanswered (the request names the same tool and input). */
function asksFor(tool: Step & { kind: 'tool' }, steps: Step[]): boolean {
  return steps.some(
    (p) => p.kind === 'permission' && p.status === 'open' && p.toolName === tool.name && p.summary === tool.summary,
  );
}

export function stepLine(s: Step, now: number, steps: Step[] = []): string {
  switch (s.kind) {
    case 'tool':
      return toolLine(s, now, asksFor(s, steps));
    case 'text':
      return `💬 ${prose(s.text, TEXT_CHARS)}${s.partial ? ' …' : ''}`;
    case 'steer':
      return `➡️ taken in: ${prose(s.text, LINE_CHARS)}`;
    case 'permission': {
      const what = `**${s.toolName}** ${code(oneLine(s.summary, LINE_CHARS))}`;
      if (s.status === 'open') return `🔐 waiting for your answer: ${what}`;
      if (s.status === 'answered')
        return `🔐 ${what}: ${s.answer?.label ?? 'answered'}${s.answer?.by ? ` (${oneLine(s.answer.by, 40)})` : ''}`;
      return `🔐 ${what}: withdrawn`;
    }
    case 'notice':
      return `ℹ️ ${prose(s.text, TEXT_CHARS)}`;
  }
}

/** A step still waiting on something: a running tool, an open permission request. */
function isCurrent(s: Step): boolean {
  return (s.kind === 'tool' && s.status === 'running') || (s.kind === 'permission' && s.status === 'open');
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The card while the turn runs. */
export function runningCard(turn: TurnView, o: CardInput): CardView {
  const steps = visibleSteps(turn, o.textMode);
  const current = steps.filter(isCurrent);
  const done = steps.filter((s) => !isCurrent(s));
  const recent = done.slice(-RECENT_STEPS);
  const lines: string[] = [];
  if (done.length > recent.length) lines.push(`… ${plural(done.length - recent.length, 'earlier step')}`);
  lines.push(...recent.map((s) => stepLine(s, o.now)));
  if (current.length) lines.push(...current.map((s) => stepLine(s, o.now, steps)));
  else if (o.streaming?.trim() && o.textMode !== 'final-only')
    lines.push(`✍️ ${prose(o.streaming.slice(-STREAM_CHARS * 2), STREAM_CHARS)}`);
  else lines.push('💭 thinking…');
  if (o.queued > 0) lines.push(`📥 ${plural(o.queued, 'message')} waiting`);
  const buttons: ButtonView[] = o.stopData ? [{ label: '⏹ Stop', data: o.stopData, style: 'danger' }] : [];
  return {
    header: `⏳ Working · ${plural(steps.length, 'step')} · ${elapsed(o.now - turn.startedAt)}`,
    lines,
    buttons,
    final: false,
  };
}

/** The card once the turn ended: one line. */
export function collapsedCard(turn: TurnView, textMode: TextMode, now: number): CardView {
  const n = visibleSteps(turn, textMode).length;
  const took = elapsed((turn.endedAt ?? now) - turn.startedAt);
  const header =
    turn.status === 'stopped'
      ? `⏹ stopped after ${plural(n, 'step')} · ${took}`
      : turn.status === 'failed'
        ? `⚠️ failed after ${plural(n, 'step')} · ${took}`
        : `✓ ${plural(n, 'step')} · ${took}`;
  return { header, lines: [], buttons: [], final: true };
}
