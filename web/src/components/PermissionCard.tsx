/** The agent asks to use a tool: Approve, Deny, and the CLI's other options, right in the turn. */
import { useState } from 'preact/hooks';
import { answerPermission } from '../state.js';
import type { PermissionStep } from '../types.js';
import './PermissionCard.css';

const LABEL: Record<string, string> = { allow: 'Approve', deny: 'Deny' };

export function PermissionCard({ step }: { step: PermissionStep }) {
  const [sent, setSent] = useState<string | undefined>();
  const options = step.options.length ? step.options : [{ id: 'allow', label: 'Allow' }, { id: 'deny', label: 'Deny' }];
  const choose = (id: string) => {
    setSent(id);
    void answerPermission(step.requestId, id).finally(() => setSent(undefined));
  };
  return (
    <div class={`permission ${step.status}`} data-testid="permission" data-request-id={step.requestId} data-status={step.status}>
      <div class="ask">
        🔐 The agent asks to use <strong>{step.toolName}</strong>
        {step.description ? `: ${step.description}` : ''}
      </div>
      <pre class="what">{step.summary}</pre>
      {step.status === 'open' ? (
        <div class="choices">
          {options.map((o) => (
            <button key={o.id} class={o.id === 'allow' ? 'primary' : o.id === 'deny' ? 'danger' : ''} data-testid={`permission-${o.id}`} disabled={sent !== undefined} onClick={() => choose(o.id)}>
              {LABEL[o.id] ?? o.label}
            </button>
          ))}
        </div>
      ) : step.status === 'answered' ? (
        <div class="result" data-testid="permission-result">
          {step.answer?.optionId === 'deny' ? 'Denied' : `Answered: ${step.answer?.label ?? ''}`}
          {step.answer?.by ? ` (by ${step.answer.by})` : ''}
        </div>
      ) : (
        <div class="result dim" data-testid="permission-result">
          Withdrawn: the turn ended before an answer.
        </div>
      )}
    </div>
  );
}
