/** Names the failure behind an agent process exit, from the recorded kill reason, the exit status and stderr. */
import type { ErrorCode } from '../../errors.js';
import type { ExitInfo } from './process.js';

/** What an exit's error says of the process: its pid, its status, the signal that ended it. */
export function exitContext(info: ExitInfo, pid: number) {
  return { pid, exitCode: info.code, signal: info.signal };
}

export function describeExit(
  info: ExitInfo,
  stderr: string[],
  state: { stopped: boolean; timedOut: boolean },
): { code: ErrorCode; detail: string } {
  const tail = stderr.slice(-3).join(' | ').slice(0, 400);
  const withTail = (s: string) => (tail ? `${s} stderr: ${tail}` : s);
  if (info.spawnError) return { code: 'AGENT_SPAWN_FAILED', detail: info.spawnError.message };
  if (state.timedOut) return { code: 'AGENT_TURN_TIMEOUT', detail: `Stopped: ${info.reason ?? 'turn timeout'}.` };
  if (state.stopped || info.reason)
    return { code: 'AGENT_STOPPED', detail: `Stopped: ${info.reason ?? 'session stopped'}.` };
  const all = stderr.join('\n');
  if (/No conversation found with session ID/i.test(all))
    return { code: 'AGENT_SESSION_NOT_FOUND', detail: withTail('') };
  if (/root\/sudo privileges|dangerously-skip-permissions cannot be used/i.test(all)) {
    return { code: 'AGENT_SPAWN_FAILED', detail: withTail('Bypass mode as root needs IS_SANDBOX=1 in agent.env.') };
  }
  if (info.signal) return { code: 'AGENT_CRASHED', detail: withTail(`It was killed by ${info.signal}.`) };
  if (info.code === 0) return { code: 'AGENT_EOF_WITHOUT_RESULT', detail: withTail('It exited with status 0.') };
  return { code: 'AGENT_CRASHED', detail: withTail(`It exited with status ${info.code}.`) };
}
