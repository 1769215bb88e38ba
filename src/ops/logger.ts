/** Logging: JSON lines into the data dir, and pretty lines on a TTY. */
import fs from 'node:fs';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export type { Logger };

export interface LoggerOptions {
  /** Directory for rudder.log (JSON lines). Omit to log to stderr only. */
  dataDir?: string;
  level?: string;
  /** Pretty-print to stderr; defaults to whether stderr is a TTY. */
  pretty?: boolean;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? process.env.RUDDER_LOG_LEVEL ?? 'info';
  const pretty = opts.pretty ?? Boolean(process.stderr.isTTY);
  const streams: pino.StreamEntry[] = [];
  if (opts.dataDir) {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    streams.push({ level: level as pino.Level, stream: pino.destination({ dest: path.join(opts.dataDir, 'rudder.log'), sync: false, mkdir: true }) });
  }
  if (pretty) {
    // pino-pretty as a stream in this process: no worker thread, so nothing outlives the gateway.
    const stream = pinoPretty({ colorize: true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname', destination: 2, sync: true });
    streams.push({ level: level as pino.Level, stream });
  } else if (!opts.dataDir) {
    streams.push({ level: level as pino.Level, stream: pino.destination(2) });
  }
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.multistream(streams));
}

/** A logger that drops everything; for tests and library callers that bring none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
