#!/usr/bin/env node
/**
 * The `rudder` command. Each command lives in its own file, declares its arguments, options and
 * help text with commander, and loads what it needs only when it runs (so `--help` stays fast).
 * Exit codes: 0 done, 1 failed, 2 bad usage or a bad config, 3 `send` timed out.
 */
import { Command, CommanderError } from 'commander';
import { RudderError } from '../errors.js';
import { VERSION } from '../ops/version.js';
import * as attach from './attach.js';
import * as backup from './backup.js';
import * as doctor from './doctor.js';
import * as node from './node.js';
import * as pairing from './pairing.js';
import * as paneState from './pane-state.js';
import * as send from './send.js';
import * as start from './start.js';
import * as status from './status.js';
import * as token from './token.js';

function program(): Command {
  const p = new Command('rudder')
    .description('A gateway between chat apps and the coding agents on this machine (Claude Code).')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .exitOverride()
    .showHelpAfterError('(rudder --help lists the commands; rudder <command> --help shows one)')
    .addHelpText(
      'after',
      '\nThe gateway reads rudder.config.json in the working directory, else $RUDDER_HOME/config.json ' +
        '(docs/configuration.md describes every key).',
    );
  for (const cmd of [start, node, send, status, attach, token, doctor, backup, paneState, pairing]) cmd.register(p);
  return p;
}

async function main(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    // commander has printed its message already; help and --version end with code 0.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const e = err as Error;
    process.stderr.write(`rudder: ${e instanceof RudderError ? `[${e.code}] ` : ''}${e?.message ?? String(err)}\n`);
    return e instanceof RudderError && e.code.startsWith('CONFIG_') ? 2 : 1;
  }
}

// main reports every failure itself and resolves with the exit code; it never rejects.
void main(process.argv).then((code) => {
  process.exitCode = code;
});
