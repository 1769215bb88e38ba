/**
 * Rudder's permission modes (agent.permissionMode, per project) as Codex's approval policy,
 * sandbox and approvals reviewer for thread/start and thread/resume. The table is in
 * docs/backends.md ("Codex backend"); `relay` is the one where the person is asked, through Rudder.
 */
import type { PermissionMode } from '../../config/permission-modes.js';
import type { v2 } from './protocol/index.js';

export interface CodexPolicy {
  approvalPolicy: v2.AskForApproval;
  sandbox: v2.SandboxMode;
  approvalsReviewer: v2.ApprovalsReviewer;
}

export const CODEX_POLICIES: Record<PermissionMode, CodexPolicy> = {
  // Ask the person (through Rudder) when a command needs more than the workspace sandbox allows.
  relay: { approvalPolicy: 'on-request', sandbox: 'workspace-write', approvalsReviewer: 'user' },
  // Edits in the workspace never ask in Codex; escalations are asked, like relay.
  acceptEdits: { approvalPolicy: 'on-request', sandbox: 'workspace-write', approvalsReviewer: 'user' },
  // Ask before every command Codex does not know to be read-only.
  manual: { approvalPolicy: 'untrusted', sandbox: 'workspace-write', approvalsReviewer: 'user' },
  // Codex's own reviewer decides instead of the person (it costs model calls).
  auto: { approvalPolicy: 'on-request', sandbox: 'workspace-write', approvalsReviewer: 'auto_review' },
  // Never ask: what the sandbox refuses fails and the model is told.
  dontAsk: { approvalPolicy: 'never', sandbox: 'workspace-write', approvalsReviewer: 'user' },
  // Read and plan only.
  plan: { approvalPolicy: 'never', sandbox: 'read-only', approvalsReviewer: 'user' },
  bypassPermissions: { approvalPolicy: 'never', sandbox: 'danger-full-access', approvalsReviewer: 'user' },
};

export function codexPolicy(mode: PermissionMode): CodexPolicy {
  return CODEX_POLICIES[mode];
}
