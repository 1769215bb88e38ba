/**
 * One step of a turn: a text block, a tool call (ToolStep.tsx), a message steered in, a
 * permission request, a notice.
 */
import { memo } from 'preact/compat';
import { clock, localTimes } from '../format.js';
import { useStore } from '../state.js';
import type { PermissionStep, Step } from '../types.js';
import { Markdown } from './Markdown.js';
import { MessageStatus } from './MessageStatus.js';
import { PermissionCard } from './PermissionCard.js';
import './Step.css';
import { ToolView } from './ToolStep.js';

/** A message sent mid-turn, where the agent took it in; what happened to it before stays said. */
function SteerView({ messageId, text, at }: { messageId: string; text: string; at: number }) {
  const m = useStore((s) => s.conv?.messages.get(messageId));
  return (
    <div class="me steer" data-testid="user-message" data-steered="true" data-id={messageId}>
      <div class="steer-label" data-testid="steer-label">
        ➡️ Handed to the running turn · taken in here at {clock(at)}
      </div>
      <div class="bubble">
        <span class="text">{m?.text ?? text}</span>
      </div>
      {m && <MessageStatus m={m} />}
    </div>
  );
}

/**
 * `cut`: the turn was stopped right after this step (its text is what had arrived). `permission`: the request a
 * tool call waited on, drawn in it.
 */
export const StepView = memo(function StepView({
  step,
  hideFinal,
  cut,
  permission,
}: {
  step: Step;
  hideFinal: boolean;
  cut?: boolean;
  permission?: PermissionStep;
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
      return <ToolView step={step} permission={permission} />;
    case 'steer':
      return <SteerView messageId={step.messageId} text={step.text} at={step.at} />;
    case 'permission':
      return <PermissionCard step={step} />;
    case 'notice':
      return (
        <div class={`step-notice ${step.code}`} data-testid="step-notice">
          {localTimes(step.text, step.at)}
        </div>
      );
    default:
      return null;
  }
});
