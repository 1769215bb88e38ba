/**
 * One step of a turn: a text block, a tool call (Bash: the command and its output; Edit, Write,
 * MultiEdit: a diff; Read, Grep, Glob: one line; others: name and short input), a message steered
 * in, a permission request, a notice.
 */
import { memo } from 'preact/compat';
import { type DiffLine, lineDiff, withContext } from '../diff.js';
import { duration } from '../format.js';
import { useNow } from '../hooks.js';
import { useStore } from '../state.js';
import type { Step, ToolStep } from '../types.js';
import { Markdown } from './Markdown.js';
import { Acks } from './MessageBubble.js';
import { PermissionCard } from './PermissionCard.js';
import { Reveal } from './Revealed.js';
import './Step.css';

const ONE_LINE = new Set(['Read', 'Grep', 'Glob', 'LS', 'WebFetch', 'WebSearch', 'NotebookRead', 'TodoRead']);
const DIFF_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
const SHORT_OUTPUT_LINES = 6;
const MAX_DIFF_LINES = 400;

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const PATH_TOOLS = new Set(['Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'NotebookRead']);

/** A path keeps its file name in view when the line is short of room (the folder is cut instead). */
function Summary({ step }: { step: ToolStep }) {
  const cut = PATH_TOOLS.has(step.name) ? step.summary.lastIndexOf('/') + 1 : 0;
  if (cut <= 0)
    return (
      <code class="tool-summary">
        <Reveal text={step.summary} />
      </code>
    );
  return (
    <code class="tool-summary path" title={step.summary}>
      <span class="dir">
        <Reveal text={step.summary.slice(0, cut)} />
      </span>
      <span class="base">
        <Reveal text={step.summary.slice(cut)} />
      </span>
    </code>
  );
}

function edits(step: ToolStep): Array<{ before: string; after: string }> {
  const i = step.input;
  if (step.name === 'Write') return [{ before: '', after: str(i.content) }];
  if (step.name === 'NotebookEdit') return [{ before: '', after: str(i.new_source) }];
  if (step.name === 'MultiEdit' && Array.isArray(i.edits))
    return i.edits.map((e: Record<string, unknown>) => ({ before: str(e?.old_string), after: str(e?.new_string) }));
  return [{ before: str(i.old_string), after: str(i.new_string) }];
}

function Diff({ step }: { step: ToolStep }) {
  const parts = edits(step).map((e) => withContext(lineDiff(e.before, e.after)));
  let shown = 0;
  return (
    <div class="diff" data-testid="diff">
      {parts.map((lines, p) => (
        <pre key={p}>
          {lines.map((l: DiffLine | null, k) => {
            if (shown++ > MAX_DIFF_LINES) return k === lines.length - 1 ? <span class="gap">… more lines</span> : null;
            return l === null ? (
              <span class="gap" key={k}>
                ⋯
              </span>
            ) : (
              <span class={l.type === '+' ? 'add' : l.type === '-' ? 'del' : 'ctx'} key={k}>
                {l.type} <Reveal text={l.text} />
                {'\n'}
              </span>
            );
          })}
        </pre>
      ))}
    </div>
  );
}

function Output({ step }: { step: ToolStep }) {
  if (step.output === undefined || step.output === '')
    return step.status === 'running' ? null : <div class="no-output dim">no output</div>;
  const lines = step.output.split('\n').length;
  const open = step.status === 'error' || lines <= SHORT_OUTPUT_LINES;
  return (
    <details class="output" open={open}>
      <summary>
        {step.status === 'error' ? 'Error' : 'Output'} · {lines} line{lines === 1 ? '' : 's'}
        {step.outputTruncated ? ' (cut)' : ''}
      </summary>
      <pre>{step.output}</pre>
    </details>
  );
}

function ToolView({ step }: { step: ToolStep }) {
  const running = step.status === 'running';
  const now = useNow(running);
  const took = (step.endedAt ?? now) - step.at;
  const body = DIFF_TOOLS.has(step.name) ? (
    <>
      <Diff step={step} />
      {step.status === 'error' && <Output step={step} />}
    </>
  ) : ONE_LINE.has(step.name) ? (
    step.status === 'error' && <Output step={step} />
  ) : (
    <Output step={step} />
  );
  return (
    <div class={`tool ${step.status}`} data-testid="tool-step" data-tool={step.name} data-status={step.status}>
      <div class="tool-head">
        <span class="state" aria-label={step.status} />
        <span class="tool-name">{step.name}</span>
        <Summary step={step} />
        <span class="tool-time">{running ? `${duration(took)}…` : duration(took)}</span>
      </div>
      {body}
    </div>
  );
}

function SteerView({ messageId, text }: { messageId: string; text: string }) {
  const acks = useStore((s) => s.conv?.messages.get(messageId)?.acks);
  return (
    <div class="me steer" data-testid="user-message" data-steered="true" data-id={messageId}>
      <div class="steer-label">Taken in during the turn</div>
      <div class="bubble">
        <span class="text">{text}</span>
        <Acks acks={acks ?? []} />
      </div>
    </div>
  );
}

/** `cut`: the turn was stopped right after this step (its text is what had arrived). */
export const StepView = memo(function StepView({
  step,
  hideFinal,
  cut,
}: {
  step: Step;
  hideFinal: boolean;
  cut?: boolean;
}) {
  switch (step.kind) {
    case 'text':
      if (step.final && hideFinal) return null;
      return (
        <div class={`text-step${step.partial || cut ? ' partial' : ''}`} data-testid="text-step">
          <Markdown text={step.text} />
          {(step.partial || cut) && <div class="cut dim">stopped here</div>}
        </div>
      );
    case 'tool':
      return <ToolView step={step} />;
    case 'steer':
      return <SteerView messageId={step.messageId} text={step.text} />;
    case 'permission':
      return <PermissionCard step={step} />;
    case 'notice':
      return (
        <div class={`step-notice ${step.code}`} data-testid="step-notice">
          {step.text}
        </div>
      );
    default:
      return null;
  }
});
