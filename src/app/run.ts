/**
 * `rudder start` as a process, in the order that keeps it safe:
 *   1. umask 077, and signal handlers (a signal during startup stops what has started);
 *   2. the data dir: created 0700, refused (exit 2) when another user owns it or others can
 *      write it, before anything in it is read;
 *   3. the config: refused when others can write it, validated (exit 2 on either);
 *   4. the data dir's lock (exit 1 when another gateway holds it), before anything is touched;
 *   5. the log (0600, redacted), the gateway (orphans swept under the lock), the startup line.
 */
import path from 'node:path';
import {
  findConfigFile,
  LiveConfig,
  type LoadedConfig,
  loadTrustedConfig,
  dataDir as resolveDataDir,
} from '../config/load.js';
import { type ErrorCode, isRudderError } from '../errors.js';
import { prepareDataDir, usePrivateUmask } from '../ops/data-dir.js';
import { acquireLock, type DataDirLock } from '../ops/lock.js';
import { createLogger, type Logger, logLevel } from '../ops/logger.js';
import { Lifecycle } from './lifecycle.js';
import { pageQr } from './qr.js';
import { type RunningGateway, startGateway } from './start.js';
import { say, warnAboutAuth, warnAboutBinary, warnAboutConfig, warnAboutNodes } from './warnings.js';

/** The start was refused, the person told why; the process exits with this code. */
class Refused {
  constructor(readonly exit: number) {}
}

export async function runGateway(): Promise<number> {
  usePrivateUmask();
  const life = new Lifecycle();
  life.install();

  const dir = resolveDataDir();
  const prepared = prepare(dir);
  if (prepared instanceof Refused) return prepared.exit;
  const { loaded, lock } = prepared;
  const log = createLogger({ dataDir: dir, level: logLevel(loaded.config.log.level) });
  life.logger(log);
  warnAboutConfig(loaded, log);
  warnAboutNodes(loaded, dir, log);
  warnAboutAuth(loaded.config, log);
  const gw = await start(dir, loaded, lock, log, life.startup.signal);
  if (gw instanceof Refused) return gw.exit;
  announce(gw, dir, loaded, log, life.requested !== undefined);
  life.running(gw, log);
  return new Promise<number>(() => undefined);
}

/** A step whose RudderError (of `code`, when given) is said on the terminal and refuses the start with `exit`. */
function refusable<T>(exit: number, step: () => T, o: { code?: ErrorCode; next?: string } = {}): T | Refused {
  try {
    return step();
  } catch (err) {
    if (!isRudderError(err, o.code)) throw err;
    say(o.next ? `${err.message}\n${o.next}` : err.message);
    return new Refused(exit);
  }
}

/** The data dir and the config, each refused (2) when not private or not valid; then the lock (1 when held). */
function prepare(dir: string): { loaded: LoadedConfig; lock: DataDirLock } | Refused {
  const made = refusable(2, () => prepareDataDir(dir));
  if (made instanceof Refused) return made;
  const loaded = refusable(2, () => loadTrustedConfig(findConfigFile()), {
    next: 'Fix the config and start again. Every key is described in docs/configuration.md.',
  });
  if (loaded instanceof Refused) return loaded;
  const lock = refusable(1, () => acquireLock(dir), { code: 'ALREADY_RUNNING' });
  return lock instanceof Refused ? lock : { loaded, lock };
}

/** The config file, followed while the gateway runs: what may apply at once does, the rest waits for a restart. */
function followConfig(loaded: LoadedConfig, log: Logger): LiveConfig {
  return new LiveConfig(loaded.file, loaded.config, {
    applied: (keys, next) => {
      if (keys.includes('log.level') && !process.env.RUDDER_LOG_LEVEL) log.level = next.log.level;
      log.info({ file: loaded.file, keys }, 'config reloaded');
    },
    pending: (keys) =>
      log.warn(
        { file: loaded.file, keys },
        'config changed: restart to apply (only steering, log.level and queue modes apply while running)',
      ),
    rejected: (error) => log.error({ err: error.message }, 'config change ignored; keeping the last good config'),
  });
}

/** The gateway, under the lock taken already; a start that fails releases it and is refused (1). */
async function start(
  dir: string,
  loaded: LoadedConfig,
  lock: DataDirLock,
  log: Logger,
  signal: AbortSignal,
): Promise<RunningGateway | Refused> {
  const config = followConfig(loaded, log);
  try {
    return await startGateway({ dataDir: dir, config, logger: log, lock, signal });
  } catch (err) {
    lock.release();
    const e = err as NodeJS.ErrnoException;
    const where = `${loaded.config.web.host}:${loaded.config.web.port}`;
    if (e.code === 'EADDRINUSE') say(`${where} is already in use by another program. Set web.port to another port.`);
    else say(`could not start: ${e.message}`);
    log.error({ err }, 'start failed');
    return new Refused(1);
  }
}

/**
 * The startup line: the page's address with its token on a terminal only, never to the log, nor to a
 * stdout that is a file or a journal (nohup, systemd): there the address goes without it, and how to get it.
 */
function announce(gw: RunningGateway, dir: string, loaded: LoadedConfig, log: Logger, stopping: boolean): void {
  log.info({ dataDir: dir, config: loaded.file ?? '(defaults)', url: gw.web?.baseUrl() }, 'rudder started');
  if (stopping) return void watchBinaries(gw, log);
  const isTTY = Boolean(process.stdout.isTTY);
  const url = isTTY ? gw.web?.url() : gw.web?.baseUrl();
  if (!url) process.stdout.write('Rudder is running (the web channel is off).\n');
  else if (!isTTY)
    process.stdout.write(
      `Rudder is running. Open ${url} with its token: \`rudder token\` prints the address with it (the token ` +
        `is the file ${path.join(dir, 'web-token')}; it is printed on a terminal only).\n`,
    );
  else process.stdout.write(`Rudder is running. Open ${url}\n`);
  // A phone opens the page from a QR code (only on a terminal, and only of an address a phone can reach).
  const qr = url && isTTY ? pageQr({ url, allowedHosts: loaded.config.web.allowedHosts, isTTY }) : undefined;
  if (qr) process.stdout.write(qr);
  watchBinaries(gw, log);
}

function watchBinaries(gw: RunningGateway, log: Logger): void {
  // The page runs without the agent's binary, so the person can read this there too (rudder status, /status).
  void gw.binaries.then((checks) => {
    for (const c of checks) warnAboutBinary(c, log);
  });
}
