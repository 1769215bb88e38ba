/**
 * Frames Rudder writes on the CLI's stdin with `--input-format stream-json`, one JSON object a line.
 * Source of truth: shared/claude-code-protocol.md.
 */

export interface UserMessageInput {
  type: 'user';
  message: { role: 'user'; content: string };
  parent_tool_use_id: null;
  session_id: string;
  /** Client uuid: echoed on replay, in command_lifecycle and in result.user_message_uuids. */
  uuid: string;
}

export interface ControlRequestInput {
  type: 'control_request';
  request_id: string;
  request:
    | { subtype: 'interrupt'; cancel_queued?: boolean }
    | { subtype: 'set_model'; model: string }
    | { subtype: 'set_permission_mode'; mode: string };
}

export interface ControlResponseInput {
  type: 'control_response';
  response:
    | {
        subtype: 'success';
        request_id: string;
        response: { behavior: 'allow'; updatedInput: Record<string, unknown> } | { behavior: 'deny'; message: string };
      }
    | { subtype: 'error'; request_id: string; error: string };
}

export type InputFrame = UserMessageInput | ControlRequestInput | ControlResponseInput;

export function userMessage(text: string, uuid: string): UserMessageInput {
  return { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '', uuid };
}

export function interruptRequest(requestId: string, cancelQueued: boolean): ControlRequestInput {
  return {
    type: 'control_request',
    request_id: requestId,
    request: { subtype: 'interrupt', ...(cancelQueued ? { cancel_queued: true } : {}) },
  };
}

export function permissionAllow(requestId: string, input: Record<string, unknown>): ControlResponseInput {
  return {
    type: 'control_response',
    response: { subtype: 'success', request_id: requestId, response: { behavior: 'allow', updatedInput: input } },
  };
}

export function permissionDeny(requestId: string, message: string): ControlResponseInput {
  return {
    type: 'control_response',
    response: { subtype: 'success', request_id: requestId, response: { behavior: 'deny', message } },
  };
}

/** One stdin line; the trailing newline is what the CLI splits on. */
export function encodeFrame(frame: InputFrame): string {
  return JSON.stringify(frame) + '\n';
}
