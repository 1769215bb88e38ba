/**
 * A tool call: its name and one line of input (Bash: the command; Read, Grep, Glob: the path or
 * pattern) that opens, on a tap, to the whole input; the permission request it waited on, in place;
 * then the output (an edit: its diff). One the person stopped says so; what the agent was told
 * about the stop is a tap away, not in the person's view.
 */
import { useState } from 'preact/hooks';
import { duration } from '../format.js';
import { useNow } from '../hooks.js';
import { useStore } from '../state.js';
import { outOfTouch, waitingForAnswer } from '../timeline.js';
import { inputText } from '../tool-input.js';
import type { PermissionStep, ToolStep } from '../types.js';
import { DIFF_FIELDS, Diff } from './Diff.js';
import { PermissionCard } from './PermissionCard.js';
import './ToolStep.css';
import { Reveal } from './Revealed.js';
import { ScrollPre } from './ScrollPre.js';

const ONE_LINE = new Set(['Read', 'Grep', 'Glob', 'LS', 'WebFetch', 'WebSearch', 'NotebookRead', 'TodoRead']);
const DIFF_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
const SHORT_OUTPUT_LINES = 6;
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
    <code class="tool-summary path">
      <span class="dir">
        <Reveal text={step.summary.slice(0, cut)} />
      </span>
      <span class="base">
        <Reveal text={step.summary.slice(cut)} />
      </span>
    </code>
  );
}

/** A stop the person asked for ended it: said so; the CLI's words to the model are behind a tap. */
function Stopped({ step }: { step: ToolStep }) {
  return (
    <div class="tool-stopped">
      <div class="stopped-line" data-testid="tool-stopped">
        ⏹ Stopped by you
      </div>
      {step.output && (
        <details class="told" data-testid="tool-told">
          <summary>What the agent was told</summary>
          <ScrollPre>{step.output}</ScrollPre>
        </details>
      )}
    </div>
  );
}

function Output({ step }: { step: ToolStep }) {
  if (step.output === undefined || step.output === '')
    return step.status === 'running' ? null : <div class="no-output dim">no output</div>;
  const lines = step.output.split('\n').length;
  const error = step.status === 'error';
  return (
    <details class={`output${error ? ' error' : ''}`} open={error || lines <= SHORT_OUTPUT_LINES}>
      <summary>
        {error ? 'Error' : 'Output'} · {lines} line{lines === 1 ? '' : 's'}
        {step.outputTruncated ? ' (cut)' : ''}
      </summary>
      <ScrollPre data-testid="tool-output">{step.output}</ScrollPre>
    </details>
  );
}

/** How long it ran, or that it waits for the person, or that nobody knows (the gateway is away). */
function timeOf(step: ToolStep, took: number, stale: boolean, asking: boolean): string {
  if (stale) return '?';
  if (asking) return 'waiting for you';
  return step.status === 'running' ? `${duration(took)}…` : duration(took);
}

export function ToolView({ step, permission }: { step: ToolStep; permission?: PermissionStep }) {
  const [open, setOpen] = useState(false);
  const running = step.status === 'running';
  const asking = waitingForAnswer(step, permission);
  // Without the gateway a running tool may have ended long ago: its clock stops rather than counting on.
  const stale = useStore((s) => running && outOfTouch(s.connection));
  const now = useNow(running && !stale && !asking);
  const took = (step.endedAt ?? now) - step.at;
  const diff = DIFF_TOOLS.has(step.name);
  const body = step.stopped ? (
    <Stopped step={step} />
  ) : diff ? (
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
    <div
      class={`tool ${step.status}${stale ? ' stale' : ''}${step.stopped ? ' stopped' : ''}${asking ? ' asking' : ''}`}
      data-testid="tool-step"
      data-tool={step.name}
      data-status={step.status}
      data-stopped={step.stopped ? 'yes' : undefined}
    >
      <button
        type="button"
        class="tool-head"
        data-testid="tool-head"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span class="state" aria-hidden="true" />
        <span class="tool-name">{step.name}</span>
        <Summary step={step} />
        <span class="tool-time">{timeOf(step, took, stale, asking)}</span>
        <span class="chevron" aria-hidden="true" />
      </button>
      {open && (
        <ScrollPre class="tool-input" data-testid="tool-input">
          <Reveal text={inputText(step.input, diff ? DIFF_FIELDS : []) || '(no other input)'} />
        </ScrollPre>
      )}
      {permission && (
        <div class="tool-permission">
          <PermissionCard step={permission} />
        </div>
      )}
      {body}
    </div>
  );
}
