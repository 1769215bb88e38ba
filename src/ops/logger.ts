/**
 * Logging: JSON lines into the data dir (rudder.log, mode 0600), and pretty lines on a TTY. Every
 * line passes through redact() on its way out, so no token reaches a log, whatever a caller put
 * in it. The level is the root logger's alone (children follow it), so it can change live.
 * A line logged with `{ shown: true }` was already printed for the person (a start-up warning):
 * it goes to rudder.log but not again to the terminal.
 */
import path from 'node:path';
import { type Logger, pino } from 'pino';
import pinoPretty from 'pino-pretty';
import { redact } from './redact.js';

export type { Logger };

export interface LoggerOptions {
  /** Directory for rudder.log (JSON lines). Omit to log to stderr only. */
  dataDir?: string;
  level?: string;
  /** Pretty-print to stderr; defaults to whether stderr is a TTY. */
  pretty?: boolean;
}

interface LineStream {
  write(line: string): unknown;
  flushSync?(): void;
  end?(): void;
}

/** A stream that writes every line redacted. */
function redacting(stream: LineStream): LineStream {
  return {
    write: (line: string) => stream.write(redact(line)),
    flushSync: stream.flushSync ? () => stream.flushSync!() : undefined,
    end: stream.end ? () => stream.end!() : undefined,
  };
}

/** The field that marks a line already printed on the terminal in its own words. */
export const SHOWN = 'shown';

/** Drops the lines marked shown (pino writes each line as one JSON string). */
function notShownAgain(stream: LineStream): LineStream {
  return { ...stream, write: (line: string) => (line.includes(`"${SHOWN}":true`) ? true : stream.write(line)) };
}

/** The level: RUDDER_LOG_LEVEL wins over the config's log.level. */
export function logLevel(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return env.RUDDER_LOG_LEVEL || configured || 'info';
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? logLevel(undefined);
  const pretty = opts.pretty ?? Boolean(process.stderr.isTTY);
  const streams: pino.StreamEntry[] = [];
  // Streams take everything; the logger's own level filters, so changing it takes effect at once.
  if (opts.dataDir) {
    const file = pino.destination({
      dest: path.join(opts.dataDir, 'rudder.log'),
      sync: false,
      mkdir: true,
      mode: 0o600,
    });
    streams.push({ level: 'trace', stream: redacting(file) as pino.DestinationStream });
  }
  if (pretty) {
    // pino-pretty as a stream in this process: no worker thread, so nothing outlives the gateway.
    const stream = pinoPretty({
      colorize: true,
      translateTime: 'HH:MM:ss',
      ignore: 'pid,hostname',
      destination: 2,
      sync: true,
    });
    streams.push({ level: 'trace', stream: notShownAgain(redacting(stream)) as pino.DestinationStream });
  } else if (!opts.dataDir) {
    streams.push({ level: 'trace', stream: redacting(pino.destination(2)) as pino.DestinationStream });
  }
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.multistream(streams));
}

/** A logger that drops everything; for tests and library callers that bring none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
