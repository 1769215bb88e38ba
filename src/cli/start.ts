/** `rudder start`: run the gateway until a signal (gateway/run.ts: data dir, config, lock, logger, startup line). */
import { runGateway } from '../gateway/run.js';

export async function run(argv: string[]): Promise<number> {
  if (argv.length) {
    process.stderr.write(`rudder start takes no arguments (got ${argv.join(' ')}); settings live in rudder.config.json.\n`);
    return 2;
  }
  return runGateway();
}
