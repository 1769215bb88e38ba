/** How an agent asks before it uses a tool (agent.permissionMode, per project too). */

/** 'relay' asks the person through Rudder (--permission-prompt-tool stdio); the rest are the CLI's own modes. */
export const PERMISSION_MODES = [
  'relay',
  'acceptEdits',
  'auto',
  'bypassPermissions',
  'manual',
  'dontAsk',
  'plan',
] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
