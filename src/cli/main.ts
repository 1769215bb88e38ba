#!/usr/bin/env node
/** The `rudder` command: start, send, status, doctor, pane-state, pairing. */
import { RudderError } from '../errors.js';

const USAGE = `Usage: rudder <command> [options]

Commands:
  start                         run the gateway (reads rudder.config.json or $RUDDER_HOME/config.json)
  send <conversation> "text"    send a message through the web API and print the reply stream
  status [--json]               what the running gateway is doing
  doctor                        check the machine and the config, and say how to fix what fails
  pane-state [--file F] [--json] classify a Claude Code TUI capture (stdin by default)
  pairing list [channel]        pending pairing requests
  pairing approve <channel> <code>  admit the sender who was given that code
  help                          this text
`;

const COMMANDS: Record<string, () => Promise<{ run(argv: string[]): Promise<number> }>> = {
  start: () => import('./start.js'),
  send: () => import('./send.js'),
  status: () => import('./status.js'),
  doctor: () => import('./doctor.js'),
  'pane-state': () => import('./pane-state.js'),
  pairing: () => import('./pairing.js'),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(USAGE);
    return name ? 0 : 1;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`rudder: unknown command "${name}".\n\n${USAGE}`);
    return 1;
  }
  return (await load()).run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const e = err as RudderError;
    process.stderr.write(`rudder: ${e instanceof RudderError ? `[${e.code}] ` : ''}${e?.message ?? String(err)}\n`);
    process.exitCode = e instanceof RudderError && e.code.startsWith('CONFIG_') ? 2 : 1;
  },
);
