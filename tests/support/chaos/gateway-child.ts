/**
 * The gateway as `rudder start` runs it, plus the slow channel: the process the chaos suite kills
 * with -9 and starts again on the same RUDDER_HOME. argv: the config file. Prints one line,
 * "ready <web url with token> <slow channel url>", once it takes messages.
 */

import { startGateway } from '../../../src/app/start.js';
import type { ChannelAccessConfig } from '../../../src/config/channels-schema.js';
import { LiveConfig, loadConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/ops/logger.js';
import { SLOW_CHANNEL, SLOW_OWNER, SlowChannel } from './slow-channel.js';

const home = process.env.RUDDER_HOME!;
const loaded = loadConfig(process.argv[2]);
const log = createLogger({ dataDir: home, level: 'debug', pretty: false });
// Access control trusts only "web" and the channels named in the config, and the config schema
// names only the real chat platforms: the slow channel's access entry is added to the loaded config.
const access: ChannelAccessConfig = {
  owners: [SLOW_OWNER],
  allow: [],
  pairing: false,
  groups: { enabled: false, requireMention: true, allow: [] },
};
(loaded.config.channels as Record<string, unknown>)[SLOW_CHANNEL] = access;
const slow = new SlowChannel({ logFile: process.env.CHAOS_SLOW_LOG!, minMs: 200, maxMs: 1500 });
const gw = await startGateway({
  dataDir: home,
  config: new LiveConfig(loaded.file, loaded.config),
  logger: log,
  extraChannels: [slow],
});
process.stdout.write(`ready ${gw.web!.url()} ${slow.url()}\n`);

let exiting = false;
const shutdown = (why: string) => {
  if (exiting) return;
  exiting = true;
  gw.stop(why).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('uncaughtException', (err) => {
  log.fatal({ err }, 'uncaught exception: stopping');
  process.stderr.write(`uncaught exception: ${err.stack}\n`);
  shutdown('uncaughtException');
});
process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
