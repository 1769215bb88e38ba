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
import { passEnvWarning } from '../agents/claude/env.js';
import type { BinaryCheck } from '../agents/common/binary-check.js';
import { pageQr } from '../cli/qr.js';
import {
  findConfigFile,
  LiveConfig,
  type LoadedConfig,
  loadTrustedConfig,
  dataDir as resolveDataDir,
} from '../config/load.js';
import { isRudderError } from '../errors.js';
import { prepareDataDir, usePrivateUmask } from '../ops/data-dir.js';
import { acquireLock, type DataDirLock } from '../ops/lock.js';
import { createLogger, type Logger, logLevel } from '../ops/logger.js';
import { isLoopbackHost } from '../security/hosts.js';
import { type RunningGateway, startGateway } from './gateway.js';

const say = (line: string) => process.stderr.write(`rudder: ${line}\n`);

/** Signals are handled from the first moment; until the gateway runs they only cut the startup short. */
class Lifecycle {
  readonly startup = new AbortController();
  private gw: RunningGateway | undefined;
  private log: Logger | undefined;
  private exiting = false;
  requested: string | undefined;

  install(): void {
    process.on('SIGTERM', () => this.request('SIGTERM'));
    process.on('SIGINT', () => this.request('SIGINT'));
    process.on('uncaughtException', (err) => {
      (this.log ?? console).error({ err }, 'uncaught exception: stopping');
      this.request('uncaughtException');
    });
    process.on('unhandledRejection', (err) => this.log?.error({ err }, 'unhandled rejection'));
  }

  running(gw: RunningGateway, log: Logger): void {
    this.gw = gw;
    this.log = log;
    if (this.requested) this.stop(this.requested);
  }

  logger(log: Logger): void {
    this.log = log;
  }

  request(signal: string): void {
    this.requested ??= signal;
    this.startup.abort();
    // Before the gateway runs, nothing needs stopping yet; startGateway returns early and running() stops it.
    if (this.gw) this.stop(signal);
    else if (!this.log) process.exit(signal === 'uncaughtException' ? 1 : 0);
  }

  private stop(signal: string): void {
    if (this.exiting || !this.gw) return;
    this.exiting = true;
    this.gw.stop(signal).then(
      () => process.exit(0),
      (err) => {
        this.log?.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  }
}

/** The config in the agent's working directory can be edited by the agent: say what that means. */
function warnings(loaded: LoadedConfig): string[] {
  const out: string[] = [];
  const cfg = loaded.config;
  if (loaded.file) {
    const cwd = path.resolve(cfg.agent.cwd ?? process.cwd());
    const rel = path.relative(cwd, loaded.file);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
      out.push(
        `${loaded.file} is inside the agent's working directory (${cwd}), so the agent can edit it. Edits to ` +
          `steering, log.level and queue modes apply at once; every other key waits for a restart, so read ` +
          `the file before restarting. To keep it out of reach, move it to $RUDDER_HOME/config.json or set ` +
          `agent.cwd elsewhere.`,
      );
    }
  }
  if (cfg.web.enabled && cfg.web.exposed && !isLoopbackHost(cfg.web.host)) {
    out.push(
      `web.exposed: the page and API are served on ${cfg.web.host}:${cfg.web.port} over plain HTTP. Anyone ` +
        `who can reach that port can try the token, and the token and every message cross the network ` +
        `unencrypted. Reach it through an HTTPS reverse proxy or a private network (WireGuard, Tailscale) ` +
        `and list that name in web.allowedHosts; see the README.`,
    );
  }
  return out;
}

export async function runGateway(): Promise<number> {
  usePrivateUmask();
  const life = new Lifecycle();
  life.install();

  const dir = resolveDataDir();
  try {
    prepareDataDir(dir);
  } catch (err) {
    if (!isRudderError(err)) throw err;
    say(err.message);
    return 2;
  }
  let loaded: LoadedConfig;
  try {
    loaded = loadTrustedConfig(findConfigFile());
  } catch (err) {
    if (!isRudderError(err)) throw err;
    say(`${err.message}\nFix the config and start again. Every key is described in the README.`);
    return 2;
  }
  let lock: DataDirLock;
  try {
    lock = acquireLock(dir);
  } catch (err) {
    if (!isRudderError(err, 'ALREADY_RUNNING')) throw err;
    say(err.message);
    return 1;
  }

  const log = createLogger({ dataDir: dir, level: logLevel(loaded.config.log.level) });
  life.logger(log);
  // Said once on the terminal; the log line is marked shown so its pretty copy is not printed again.
  const pw = passEnvWarning({ passVars: loaded.config.agent.passEnv, extra: loaded.config.agent.env });
  for (const w of [...warnings(loaded), ...(pw ? [pw] : [])]) {
    say(`warning: ${w}`);
    log.warn({ shown: true }, w);
  }
  const live = new LiveConfig(loaded.file, loaded.config, {
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
  let gw: RunningGateway;
  try {
    gw = await startGateway({ dataDir: dir, config: live, logger: log, lock, signal: life.startup.signal });
  } catch (err) {
    lock.release();
    const e = err as NodeJS.ErrnoException;
    const where = `${loaded.config.web.host}:${loaded.config.web.port}`;
    if (e.code === 'EADDRINUSE') say(`${where} is already in use by another program. Set web.port to another port.`);
    else say(`could not start: ${e.message}`);
    log.error({ err }, 'start failed');
    return 1;
  }
  log.info({ dataDir: dir, config: loaded.file ?? '(defaults)', url: gw.web?.baseUrl() }, 'rudder started');
  // The token goes to the terminal only, never to the log.
  const url = gw.web?.url();
  if (!life.requested) {
    process.stdout.write(url ? `Rudder is running. Open ${url}\n` : 'Rudder is running (the web channel is off).\n');
    // A phone opens the page from a QR code (only on a terminal, and only of an address a phone can reach).
    const isTTY = Boolean(process.stdout.isTTY);
    const qr = url ? pageQr({ url, allowedHosts: loaded.config.web.allowedHosts, isTTY }) : undefined;
    if (qr) process.stdout.write(qr);
  }
  // The page runs without the agent's binary, so the person can read this there too (rudder status, /status).
  void gw.binaries.then((checks) => {
    for (const c of checks) warnAboutBinary(c, log);
  });
  life.running(gw, log);
  return new Promise<number>(() => undefined);
}

function warnAboutBinary(c: BinaryCheck, log: Logger): void {
  if (c.ok) return;
  process.stderr.write(
    `warning: ${c.problem} ${c.agent} conversations cannot start until this is fixed (fix: ${c.fix})\n`,
  );
  log.warn(
    { shown: true, agent: c.agent, problem: c.problem, fix: c.fix },
    'an agent binary is missing or broken; its conversations cannot start',
  );
}
