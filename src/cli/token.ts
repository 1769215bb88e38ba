/**
 * `rudder token`: the page's address with its access token, for a gateway whose startup line went to
 * a file or a journal (the token is printed at start only on a terminal). The address is the config's
 * web address (or RUDDER_URL), the token the data dir's web-token (or RUDDER_TOKEN).
 */
import type { Command } from 'commander';
import { endpoint } from './client.js';

export function register(program: Command): void {
  program
    .command('token')
    .description("print the page's address with its access token (open it in a browser to sign the page in)")
    .addHelpText(
      'after',
      '\nThe token is the file web-token in the data dir ($RUDDER_HOME, else ~/.rudder); anyone who has it ' +
        'can use the page and the API.',
    )
    .action(() => {
      const ep = endpoint();
      process.stdout.write(`${ep.base}/#token=${ep.token}\n`);
    });
}
