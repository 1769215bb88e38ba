/**
 * What a conversation attached to a person's pane is launched with: the pane (found by its tmux id
 * on its server) and the claude process in it, checked to be the same process (its start time), its
 * config dir and session; the typing settings of agent.tmux (the pane, shared with the person, is
 * typed into as borrowed-pane.ts says).
 */
import { RudderError } from '../../../errors.js';
import type { SessionLaunch } from '../../common/session-base.js';
import { type LaunchContext, launchBase } from '../../launch.js';
import type { TuiLaunch } from '../pane/host.js';
import { tuiSettings } from '../tmux-launch.js';
import type { AttachedPane } from './attachment.js';

export type { AttachedPane, Attachment } from './attachment.js';

export interface AttachedLaunch extends TuiLaunch {
  pane: AttachedPane;
  onGone?: (why: string) => void;
}

export function attachedLaunch(ctx: LaunchContext): AttachedLaunch {
  if (!ctx.attached)
    throw new RudderError('CONFIG_INVALID', 'No pane to attach to.', { conversationId: ctx.conversationId });
  const base: SessionLaunch = launchBase(ctx);
  return {
    ...base,
    sessionId: ctx.attached.pane.sessionId,
    pane: ctx.attached.pane,
    // The person's configured wish decides which menu options the phone offers (relay: none that stop the asking).
    permissionMode: ctx.settings.permissionMode,
    tmux: tuiSettings(ctx),
    onGone: ctx.attached.gone,
  };
}
