/**
 * The interactive CLI's command line. Checked on 2.1.332: `--session-id <uuid>` names a new session
 * (its transcript is <uuid>.jsonl), `--resume <id>` continues one in the same file (an unknown id
 * exits with status 1), `--append-system-prompt` and `--permission-mode manual` work as in -p mode.
 */

import { WRAPPER_SYSTEM_PROMPT } from '../../../security/wrap.js';
import { autocompactArgs, type LaunchOptions, type PermissionMode } from '../../claude/args.js';

/** 'relay' means the TUI asks at every tool that needs approval and Rudder relays the prompt: its manual mode. */
function permissionArgs(mode: PermissionMode): string[] {
  if (mode === 'relay') return ['--permission-mode', 'manual'];
  if (mode === 'bypassPermissions') return ['--dangerously-skip-permissions'];
  return ['--permission-mode', mode];
}

export interface TuiSession {
  /** Resume this session; otherwise start the new one named by newSessionId. */
  resume?: string;
  newSessionId?: string;
  /** Directories the agent may read without asking (where long messages are saved). */
  addDirs?: string[];
}

export function tuiArgs(opts: LaunchOptions, session: TuiSession): string[] {
  const args: string[] = [];
  if (session.resume) args.push('--resume', session.resume);
  else if (session.newSessionId) args.push('--session-id', session.newSessionId);
  if (opts.model) args.push('--model', opts.model);
  const prompt = opts.appendSystemPrompt
    ? `${WRAPPER_SYSTEM_PROMPT}\n\n${opts.appendSystemPrompt}`
    : WRAPPER_SYSTEM_PROMPT;
  args.push('--append-system-prompt', prompt);
  args.push(...permissionArgs(opts.permissionMode));
  if (opts.allowedTools?.length) args.push('--allowed-tools', opts.allowedTools.join(','));
  if (opts.disallowedTools?.length) args.push('--disallowed-tools', opts.disallowedTools.join(','));
  for (const dir of session.addDirs ?? []) args.push('--add-dir', dir);
  args.push(...autocompactArgs(opts));
  return [...args, ...(opts.extraArgs ?? [])];
}
