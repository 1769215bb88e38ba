/** Bolt and the Socket Mode client log through this adapter into Rudder's pino logger. */
import { LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from '../../ops/logger.js';

const toSlack: Record<string, LogLevel> = {
  trace: LogLevel.DEBUG,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  fatal: LogLevel.ERROR,
  silent: LogLevel.ERROR,
};

export function slackLogger(log: Logger): SlackLogger {
  const text = (msg: unknown[]) =>
    msg.map((m) => (m instanceof Error ? m.message : typeof m === 'string' ? m : JSON.stringify(m))).join(' ');
  return {
    debug: (...msg) => log.debug(text(msg)),
    info: (...msg) => log.info(text(msg)),
    warn: (...msg) => log.warn(text(msg)),
    error: (...msg) => log.error(text(msg)),
    // Rudder's logger level rules; Slack's libraries may ask but not change it.
    setLevel: () => undefined,
    getLevel: () => toSlack[log.level] ?? LogLevel.INFO,
    setName: () => undefined,
  };
}
