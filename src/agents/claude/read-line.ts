/** A line of a Claude process's output as a frame: a blank line gives none, a malformed one is logged and skipped. */
import type { Logger } from '../../ops/logger.js';
import type { OutputFrame } from './protocol/output.js';
import { parseLine } from './protocol/parse.js';

export function readLine(line: string, log: Logger, pid: number): OutputFrame | undefined {
  const parsed = parseLine(line);
  if (parsed.kind === 'blank') return undefined;
  if (parsed.kind === 'malformed') {
    log.warn({ pid, reason: parsed.reason, excerpt: parsed.excerpt }, 'agent output: malformed line skipped');
    return undefined;
  }
  return parsed.frame;
}
