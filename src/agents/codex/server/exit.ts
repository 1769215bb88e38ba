/** Names the failure behind an app-server's exit, from the recorded kill reason, the exit status and stderr. */
import type { ErrorCode } from '../../../errors.js';
import type { ExitInfo } from '../../claude/process.js';

/** Lines of the app-server's own start-up chatter that say nothing about why it died. */
const NOISE = /could not create PATH aliases|Refusing to create helper binaries|could not find bubblewrap/i;

export function describeCodexExit(info: ExitInfo, stderr: string[]): { code: ErrorCode; detail: string } {
  const tail = stderr
    .filter((l) => l.trim() && !NOISE.test(l))
    .slice(-3)
    .join(' | ')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .slice(0, 400);
  const withTail = (s: string) => (tail ? `${s} stderr: ${tail}` : s);
  if (info.spawnError) return { code: 'AGENT_SPAWN_FAILED', detail: `codex app-server: ${info.spawnError.message}` };
  if (info.reason) return { code: 'AGENT_STOPPED', detail: `Stopped: ${info.reason}.` };
  if (info.signal)
    return { code: 'AGENT_CRASHED', detail: withTail(`The codex app-server was killed by ${info.signal}.`) };
  return { code: 'AGENT_CRASHED', detail: withTail(`The codex app-server exited with status ${info.code}.`) };
}
