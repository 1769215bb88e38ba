/**
 * A tool call: its name and one line of input (Bash: the command; Read, Grep, Glob: the path or
 * pattern) that opens, on a tap, to the whole input; then the output (an edit: its diff).
 */
import { useState } from 'preact/hooks';
import { duration } from '../format.js';
import { useNow } from '../hooks.js';
import { useStore } from '../state.js';
import { outOfTouch } from '../timeline.js';
import { inputText } from '../tool-input.js';
import type { ToolStep } from '../types.js';
import { DIFF_FIELDS, Diff } from './Diff.js';
import './ToolStep.css';
import { Reveal } from './Revealed.js';

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
      <pre data-testid="tool-output">{step.output}</pre>
    </details>
  );
}

export function ToolView({ step }: { step: ToolStep }) {
  const [open, setOpen] = useState(false);
  const running = step.status === 'running';
  // Without the gateway a running tool may have ended long ago: its clock stops rather than counting on.
  const stale = useStore((s) => running && outOfTouch(s.connection));
  const now = useNow(running && !stale);
  const took = (step.endedAt ?? now) - step.at;
  const diff = DIFF_TOOLS.has(step.name);
  const body = diff ? (
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
      class={`tool ${step.status}${stale ? ' stale' : ''}`}
      data-testid="tool-step"
      data-tool={step.name}
      data-status={step.status}
    >
      <button
        type="button"
        class="tool-head"
        data-testid="tool-head"
        aria-expanded={open}
        aria-label={`${step.name}: ${step.summary} (${open ? 'hide' : 'show'} the whole input)`}
        onClick={() => setOpen(!open)}
      >
        <span class="state" aria-hidden="true" />
        <span class="tool-name">{step.name}</span>
        <Summary step={step} />
        <span class="tool-time">{stale ? '?' : running ? `${duration(took)}…` : duration(took)}</span>
        <span class="chevron" aria-hidden="true" />
      </button>
      {open && (
        <pre class="tool-input" data-testid="tool-input">
          <Reveal text={inputText(step.input, diff ? DIFF_FIELDS : []) || '(no other input)'} />
        </pre>
      )}
      {body}
    </div>
  );
}
