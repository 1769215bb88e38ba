/**
 * The agent's `session/request_permission` as a Rudder permission request, and the person's option
 * back as the agent's outcome. The options are the agent's own, ids included (Claude's `allow-once`,
 * Gemini's `proceed_once`, Copilot's `allow_once`…); each gets Rudder's `kind` from the agent's
 * (allow_* → allow, reject_* → deny), and the *_always ones an `effect`, since they change later
 * requests too. A request is answered once: by the person (an option it offered), or `cancelled`
 * when its turn ends or is stopped while it waits, since one left unanswered would stall the agent.
 */
import { randomUUID } from 'node:crypto';
import type { PermissionAnswer, PermissionOption, PermissionRequest } from '../session.js';
import type { AcpPermissionOption, RequestPermissionRequest, RequestPermissionResponse } from './protocol.js';

const EFFECTS: Record<string, string> = {
  allow_always: 'the agent no longer asks about this kind of call (its own rule, kept by the agent)',
  reject_always: 'the agent refuses this kind of call from now on without asking',
};

export function toOptions(options: AcpPermissionOption[]): PermissionOption[] {
  return options.map((o) => ({
    id: o.optionId,
    label: o.name,
    kind: o.kind.startsWith('allow') ? 'allow' : 'deny',
    ...(EFFECTS[o.kind] ? { effect: EFFECTS[o.kind] } : {}),
  }));
}

interface Pending {
  offered: Map<string, AcpPermissionOption>;
  resolve: (r: RequestPermissionResponse) => void;
}

export class PermissionRequests {
  private readonly pending = new Map<string, Pending>();
  /** A refusal was chosen since the last reset (Codex then ends the prompt `cancelled`). */
  refused = false;

  /** Opens a request; `ask` shows it to the person. Resolves with the agent's answer. */
  open(
    params: RequestPermissionRequest,
    tool: { name: string; input: Record<string, unknown> },
    ask: (request: PermissionRequest) => void,
  ): Promise<RequestPermissionResponse> {
    const requestId = randomUUID();
    const options = Array.isArray(params.options) ? params.options : [];
    return new Promise((resolve) => {
      this.pending.set(requestId, { offered: new Map(options.map((o) => [o.optionId, o])), resolve });
      ask({
        requestId,
        toolName: tool.name,
        input: tool.input,
        ...(params.toolCall?.title ? { description: params.toolCall.title } : {}),
        options: toOptions(options),
      });
    });
  }

  /** The person's answer: false when the request is not open or did not offer the option. */
  answer(requestId: string, answer: PermissionAnswer): boolean {
    const p = this.pending.get(requestId);
    const option = p?.offered.get(answer.optionId);
    if (!p || !option) return false;
    this.pending.delete(requestId);
    if (option.kind.startsWith('reject')) this.refused = true;
    p.resolve({ outcome: { outcome: 'selected', optionId: option.optionId } });
    return true;
  }

  /** How many requests wait for an answer. */
  waiting(): number {
    return this.pending.size;
  }

  /** Every open request answered `cancelled` (its turn ended, was stopped, or the agent is gone). */
  cancelAll(): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.resolve({ outcome: { outcome: 'cancelled' } });
  }
}
