/**
 * The desk's changes as the page sees them: a `permission` event on the conversation's bus when a
 * request opens, is answered (only once the answer reached the agent) or is withdrawn.
 */
import type { EventBus } from '../bus.js';
import type { PermissionDesk } from './desk.js';

export function publishPermissions(desk: PermissionDesk, bus: EventBus): void {
  desk.subscribe((e) => {
    const { conversationId, messageId, request } = e.open;
    const requestId = request.requestId;
    if (e.kind === 'opened')
      bus.emit(conversationId, 'permission', messageId, {
        requestId,
        toolName: request.toolName,
        input: request.input,
        description: request.description,
        options: request.options,
      });
    else if (e.kind === 'answered')
      bus.emit(conversationId, 'permission', messageId, { requestId, resolved: e.optionId, by: e.by, delivered: true });
    else bus.emit(conversationId, 'permission', messageId, { requestId, withdrawn: true });
  });
}
