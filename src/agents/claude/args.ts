/** Command lines for the CLI's two headless modes. Flag facts: shared/claude-code-protocol.md. */
import { WRAPPER_SYSTEM_PROMPT } from '../../security/wrap.js';

export { PERMISSION_MODES, type PermissionMode } from '../../config/permission-modes.js';

import type { PermissionMode } from '../../config/permission-modes.js';

export interface LaunchOptions {
  model?: string;
  permissionMode: PermissionMode;
  allowedTools?: string[];
  disallowedTools?: string[];
  /** Added after the external-content rules, which are always appended. */
  appendSystemPrompt?: string;
  /**
   * `--autocompact`: the context size at which the CLI summarises the history ('auto': the
   * model's context window, which is also what 2.1.332 does without the flag).
   */
  autocompact?: 'auto' | number;
  extraArgs?: string[];
}

/** The `--autocompact` argument, when set. */
export function autocompactArgs(opts: LaunchOptions): string[] {
  return opts.autocompact === undefined ? [] : ['--autocompact', String(opts.autocompact)];
}

function commonArgs(opts: LaunchOptions, sessionId: string | undefined): string[] {
  const args: string[] = [];
  if (sessionId) args.push('--resume', sessionId);
  if (opts.model) args.push('--model', opts.model);
  const prompt = opts.appendSystemPrompt
    ? `${WRAPPER_SYSTEM_PROMPT}\n\n${opts.appendSystemPrompt}`
    : WRAPPER_SYSTEM_PROMPT;
  args.push('--append-system-prompt', prompt);
  if (opts.permissionMode === 'relay') args.push('--permission-prompt-tool', 'stdio');
  else if (opts.permissionMode === 'bypassPermissions') args.push('--dangerously-skip-permissions');
  else args.push('--permission-mode', opts.permissionMode);
  if (opts.allowedTools?.length) args.push('--allowed-tools', opts.allowedTools.join(','));
  if (opts.disallowedTools?.length) args.push('--disallowed-tools', opts.disallowedTools.join(','));
  args.push(...autocompactArgs(opts));
  return [...args, ...(opts.extraArgs ?? [])];
}

/** `claude -p` kept alive, reading user messages and control requests on stdin. */
export function streamArgs(opts: LaunchOptions, sessionId: string | undefined): string[] {
  return [
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose', // mandatory with stream-json output
    '--replay-user-messages',
    '--include-partial-messages',
    ...commonArgs(opts, sessionId),
  ];
}

/**
 * One process per turn. The prompt is written to stdin, never put in argv: argv is visible in `ps`,
 * cannot carry a NUL and fails with E2BIG for one string over 128 KiB.
 */
export function oneShotArgs(opts: LaunchOptions, sessionId: string | undefined): string[] {
  return [
    '-p',
    '--input-format',
    'text',
    '--output-format',
    'stream-json',
    '--verbose',
    '--include-partial-messages',
    ...commonArgs(opts, sessionId),
  ];
}
