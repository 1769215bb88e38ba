/**
 * Tool permission requests of the persistent session (`--permission-prompt-tool stdio`): a
 * can_use_tool control request becomes a 'permission' event of the running turn, and the
 * person's answer goes back as its control_response. Other control requests are refused, since
 * one left unanswered would hang the CLI.
 */
import type { PermissionAnswer } from '../session.js';
import type { AgentProcess } from './process.js';
import { type ControlRequestFrame, encodeFrame, permissionAllow, permissionDeny } from './protocol/index.js';
import type { StreamTurn } from './stream-turn.js';

export class PermissionRelay {
  private readonly pending = new Map<string, { turn: StreamTurn; input: Record<string, unknown> }>();

  open(proc: AgentProcess, frame: ControlRequestFrame, turn: StreamTurn | undefined): void {
    const req = frame.request;
    if (req.subtype !== 'can_use_tool' || !turn) {
      const response = {
        type: 'control_response',
        response: {
          subtype: 'error',
          request_id: frame.request_id,
          error: `Rudder does not handle ${req.subtype} here`,
        },
      };
      try {
        proc.write(JSON.stringify(response) + '\n');
      } catch {
        // The exit handler reports the dead process.
      }
      return;
    }
    const input = (req.input ?? {}) as Record<string, unknown>;
    this.pending.set(frame.request_id, { turn, input });
    turn.emit({
      type: 'permission',
      request: {
        requestId: frame.request_id,
        toolName: req.tool_name ?? 'tool',
        input,
        description: typeof req.description === 'string' ? req.description : undefined,
        options: [
          { id: 'allow', label: 'Allow' },
          { id: 'deny', label: 'Deny' },
        ],
      },
    });
  }

  /** Writes the answer; false when the request is unknown, already answered, or the pipe is gone. */
  answer(proc: AgentProcess, requestId: string, answer: PermissionAnswer): boolean {
    const p = this.pending.get(requestId);
    if (!p) return false;
    this.pending.delete(requestId);
    // Claude's wire has allow and deny only: any other option id is a refusal.
    const allow = answer.optionId === 'allow';
    const message = answer.message || 'The person denied this.';
    try {
      proc.write(encodeFrame(allow ? permissionAllow(requestId, p.input) : permissionDeny(requestId, message)));
      return true;
    } catch {
      return false;
    }
  }

  /** Forgets the requests of a turn that ended (all of them with undefined). */
  dropFor(turn: StreamTurn | undefined): void {
    for (const [id, p] of this.pending) if (turn === undefined || p.turn === turn) this.pending.delete(id);
  }
}
