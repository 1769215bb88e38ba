/**
 * Names the failure behind an ACP agent's exit, from the recorded kill reason, whether it had
 * answered initialize, the exit status and the last lines of stderr. An agent that dies before it
 * answered is a start-up failure whose message names agent.acp.command: that is what to check.
 */
import type { ErrorCode } from '../../errors.js';
import type { ExitInfo } from '../claude/process.js';

export interface ExitWhy {
  code: ErrorCode;
  detail: string;
}

/** The last meaningful stderr lines, without colour codes, bounded. */
export function stderrSummary(stderr: string[]): string {
  return stderr
    .filter((l) => l.trim())
    .slice(-3)
    .join(' | ')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .slice(0, 400);
}

export function describeAcpExit(
  info: ExitInfo,
  stderr: string[],
  ctx: { label: string; command: string; started: boolean },
): ExitWhy {
  const tail = stderrSummary(stderr);
  const withTail = (s: string) => (tail ? `${s} stderr: ${tail}` : s);
  const how = info.signal ? `was killed by ${info.signal}` : `exited with status ${info.code}`;
  if (info.spawnError)
    return {
      code: 'ACP_START_FAILED',
      detail: `agent.acp.command (${ctx.command}) could not be run: ${info.spawnError.message}`,
    };
  if (info.reason) return { code: 'AGENT_STOPPED', detail: `Stopped: ${info.reason}.` };
  if (!ctx.started)
    return {
      code: 'ACP_START_FAILED',
      detail: withTail(`${ctx.label} (agent.acp.command: ${ctx.command}) ${how} before it answered initialize.`),
    };
  return { code: 'AGENT_CRASHED', detail: withTail(`${ctx.label} ${how}.`) };
}
