/** `rudder start`: run the gateway until a signal (app/run.ts: data dir, config, lock, logger, startup line). */
import type { Command } from 'commander';

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
Exit codes: 2 when the config is not valid, or the data dir (or the config file) is not
private to you; 1 when another Rudder runs on this data dir or the gateway cannot start
(e.g. the port is in use).`,
    )
    .action(async () => {
      const { runGateway } = await import('../app/run.js');
      process.exitCode = await runGateway();
    });
}
