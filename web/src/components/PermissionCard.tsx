/** The agent asks to use a tool: Approve, Deny, and the CLI's other options, right in the turn. */
import { useState } from 'preact/hooks';
import { answerPermission } from '../state.js';
import { inputText } from '../tool-input.js';
import type { PermissionStep } from '../types.js';
import './PermissionCard.css';
import { Reveal, RevealedText, revealInvisible, revealNote } from './Revealed.js';
import { ScrollPre } from './ScrollPre.js';

const LABEL: Record<string, string> = { allow: 'Approve', deny: 'Deny' };
const DONE: Record<string, string> = { allow: 'Approved', deny: 'Denied' };

/** Who answered, as the person reads it: the page's owner is "you". */
const answeredBy = (by: string) => (by === 'web:owner' ? 'you' : by);

export function PermissionCard({
  step,
  answer = answerPermission,
}: {
  step: PermissionStep;
  /** Where the answer goes: the open conversation's request, unless given (a chat's request). */
  answer?: (requestId: string, optionId: string) => Promise<void>;
}) {
  const [sent, setSent] = useState<string | undefined>();
  const all = step.options.length
    ? step.options
    : [
        { id: 'allow', label: 'Allow' },
        { id: 'deny', label: 'Deny' },
      ];
  // What cannot be shown whole cannot be approved here: only a refusal is offered.
  const options = step.inputCut ? all.filter((o) => o.id === 'deny') : all;
  // Shown as it will run: hidden characters as escapes, and the card says the input holds them.
  const revealed = revealInvisible(inputText(step.input));
  const hidden = revealNote(revealed);
  const choose = (id: string) => {
    setSent(id);
    void answer(step.requestId, id).finally(() => setSent(undefined));
  };
  return (
    <div
      class={`permission ${step.status}`}
      data-testid="permission"
      data-request-id={step.requestId}
      data-status={step.status}
    >
      <div class="ask">
        🔐 The agent asks to use <strong>{step.toolName}</strong>
        {step.description ? (
          <>
            : <Reveal text={step.description} />
          </>
        ) : (
          ''
        )}
      </div>
      {hidden && (
        <div class="hidden-note" data-testid="permission-hidden">
          {hidden}
        </div>
      )}
      <ScrollPre class="what" data-testid="permission-input" data-hidden={revealed.changed ? 'true' : undefined}>
        <RevealedText revealed={revealed} />
      </ScrollPre>
      {step.inputCut && step.status === 'open' && (
        <div class="cut">
          ✂️ Part of this input is too long to show here, so it cannot be approved from this page. Deny it, or answer in
          the agent's terminal.
        </div>
      )}
      {step.status === 'open' ? (
        <div class="choices">
          {options.map((o) => (
            <button
              type="button"
              key={o.id}
              class={o.id === 'allow' ? 'primary' : o.id === 'deny' ? 'danger' : ''}
              data-testid={`permission-${o.id}`}
              disabled={sent !== undefined}
              onClick={() => choose(o.id)}
            >
              {LABEL[o.id] ?? o.label}
              {'effect' in o && o.effect ? <span class="effect">⚠️ {o.effect}</span> : null}
            </button>
          ))}
        </div>
      ) : step.status === 'answered' ? (
        <div class="result" data-testid="permission-result">
          {DONE[step.answer?.optionId ?? ''] ?? `Answered: ${step.answer?.label ?? ''}`}
          {step.answer?.by ? ` by ${answeredBy(step.answer.by)}` : ''}
        </div>
      ) : (
        <div class="result dim" data-testid="permission-result">
          Withdrawn: the turn ended before an answer.
        </div>
      )}
    </div>
  );
}
