/**
 * `rudder node` as a process, in the order `rudder start` keeps: umask 077 and signal handlers; the
 * data dir (0700, refused when others can write it); the config (refused when others can write
 * it); the join saved by `rudder node join` (or RUDDER_NODE_TOKEN, never argv); the data dir's
 * lock; the log; the node; one line on stdout once it runs.
 */
import { findConfigFile, LiveConfig, loadTrustedConfig, dataDir as resolveDataDir } from '../../config/load.js';
import { isRudderError, RudderError } from '../../errors.js';
import { prepareDataDir, usePrivateUmask } from '../../ops/data-dir.js';
import { acquireLock } from '../../ops/lock.js';
import { createLogger, type Logger, logLevel } from '../../ops/logger.js';
import { decodeJoinToken, type JoinToken, loadJoin } from '../credentials.js';
import { type RunningNode, startNode } from './node.js';

const say = (line: string) => process.stderr.write(`rudder node: ${line}\n`);

export async function runNode(): Promise<number> {
  usePrivateUmask();
  let node: RunningNode | undefined;
  let log: Logger | undefined;
  let exiting = false;
  const stop = (why: string, code = 0) => {
    if (exiting) return;
    exiting = true;
    if (!node) process.exit(code);
    node.stop(why).then(
      () => process.exit(code),
      (err) => {
        log?.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('uncaughtException', (err) => {
    (log ?? console).error({ err }, 'uncaught exception: stopping');
    stop('uncaughtException');
  });
  process.on('unhandledRejection', (err) => log?.error({ err }, 'unhandled rejection'));

  const dir = resolveDataDir();
  try {
    prepareDataDir(dir);
    const loaded = loadTrustedConfig(findConfigFile());
    const join = joinOf(dir);
    const lock = acquireLock(dir);
    log = createLogger({ dataDir: dir, level: logLevel(loaded.config.log.level) });
    const config = new LiveConfig(loaded.file, loaded.config, {});
    try {
      node = await startNode({ dataDir: dir, config, join, log });
    } catch (err) {
      lock.release();
      throw err;
    }
  } catch (err) {
    if (!isRudderError(err)) throw err;
    say(err.message);
    log?.error({ code: err.code, err: err.message }, 'node start failed');
    const refused =
      err.code.startsWith('CONFIG_') || err.code === 'DATA_DIR_UNSAFE' || err.code === 'NODE_URL_PLAINTEXT';
    return refused ? 2 : 1;
  }
  process.stdout.write(
    `Rudder node ${node.name} is running (projects: ${node.projects.join(', ') || 'none'}; NATS ${node.url}).\n`,
  );
  // Refused by the server once running (the key was removed): the same words, and exit, as a start refused.
  void node.refused.then((err) => {
    say(err.message);
    log?.error({ code: err.code, err: err.message }, 'the server refused this node: stopping');
    stop('refused by the server', 1);
  });
  if (exiting) stop('signal during start');
  return new Promise<number>(() => undefined);
}

function joinOf(dir: string): JoinToken {
  const fromEnv = process.env.RUDDER_NODE_TOKEN;
  if (fromEnv) return decodeJoinToken(fromEnv);
  const saved = loadJoin(dir);
  if (saved) return saved;
  throw new RudderError(
    'NODE_JOIN_INVALID',
    `${dir} holds no join token: run \`rudder node add <name>\` on the front, then \`rudder node join\` here.`,
  );
}
