/** `rudder start`: load and validate the config (exit 2 on a bad one, starting nothing), then run until a signal. */
import fs from 'node:fs';
import type { Command } from 'commander';
import type { ClaudeCheck } from '../agents/claude/health.js';
import { LiveConfig, dataDir as resolveDataDir, findConfigFile, loadConfig } from '../config/load.js';
import { isRudderError } from '../errors.js';

export function register(program: Command): void {
  program
    .command('start')
    .description('run the gateway (what npm start does) until SIGTERM or SIGINT')
    .addHelpText(
      'after',
      `
Settings live in rudder.config.json (in the working directory) or $RUDDER_HOME/config.json;
without either, Rudder runs on defaults: the store in ~/.rudder, the web page on
http://127.0.0.1:8787. The startup line prints the page's address with its access token.
A missing or broken claude binary does not stop the start: a warning names the fix.
Exit codes: 2 when the config is not valid or the data dir is not writable, 1 when the
gateway cannot start (e.g. the port is in use).`,
    )
    .action(async () => {
      process.exitCode = await start();
    });
}

/** Starts the gateway and prints where it runs; resolves only when the start fails (with its exit code). */
export async function start(): Promise<number> {
  const file = findConfigFile();
  let loaded;
  try {
    loaded = loadConfig(file);
  } catch (err) {
    if (!isRudderError(err)) throw err;
    process.stderr.write(`rudder: ${err.message}\nFix the config and start again. Every key is described in the README.\n`);
    return 2;
  }
  const dir = resolveDataDir();
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    process.stderr.write(`rudder: the data dir ${dir} is not writable (${(err as Error).message}). Set RUDDER_HOME to a writable directory.\n`);
    return 2;
  }
  const [{ startGateway }, { createLogger }] = await Promise.all([import('../gateway/gateway.js'), import('../ops/logger.js')]);
  const log = createLogger({ dataDir: dir, level: loaded.config.log.level });
  const live = new LiveConfig(loaded.file, loaded.config, (_next, error) => {
    if (error) log.error({ err: error.message }, 'config change ignored: the file is not valid; keeping the last good config');
    else log.info({ file: loaded.file }, 'config reloaded');
  });
  let gw;
  try {
    gw = await startGateway({ dataDir: dir, config: live, logger: log });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const where = `${loaded.config.web.host}:${loaded.config.web.port}`;
    if (e.code === 'EADDRINUSE') process.stderr.write(`rudder: ${where} is already in use (is Rudder already running? rudder status tells). Set web.port to another port.\n`);
    else process.stderr.write(`rudder: could not start: ${e.message}\n`);
    log.error({ err }, 'start failed');
    return 1;
  }
  const url = gw.web?.url();
  log.info({ dataDir: dir, config: loaded.file ?? '(defaults)', url }, 'rudder started');
  process.stdout.write(url ? `Rudder is running. Open ${url}\n` : 'Rudder is running (the web channel is off).\n');
  // The page runs without claude, so the person can read this there too (rudder status, /status).
  void gw.claude.then((c) => warnAboutClaude(c, log));

  let exiting = false;
  const shutdown = (signal: string) => {
    if (exiting) return;
    exiting = true;
    gw.stop(signal).then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception: stopping');
    shutdown('uncaughtException');
  });
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
  return new Promise<number>(() => undefined);
}

function warnAboutClaude(c: ClaudeCheck, log: { warn(o: object, m: string): void }): void {
  if (c.ok) return;
  process.stderr.write(`warning: ${c.problem} Agents cannot start until this is fixed (fix: ${c.fix})\n`);
  log.warn({ problem: c.problem, fix: c.fix }, 'the claude binary is missing or broken; agents cannot start');
}
