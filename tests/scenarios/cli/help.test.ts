/** The `rudder` command line itself: --version, help for every command, and clear usage errors. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { ROOT } from '../../support/gateway-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const COMMANDS = ['start', 'send', 'status', 'doctor', 'backup', 'pane-state', 'pairing'];
// Commands run in an empty directory with an empty data dir, so nothing they might do by mistake touches a real one.
const sandbox = () => ({
  cwd: tempDir('cli-cwd'),
  env: cleanEnv({ RUDDER_HOME: path.join(tempDir('cli-home'), 'data') }),
});

describe('rudder --version and help', () => {
  it('--version prints the package version', async () => {
    const r = await runCli(['--version'], sandbox());
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
  });

  it.each(COMMANDS)('%s --help prints its usage and runs nothing', async (name) => {
    const box = sandbox();
    const r = await runCli([name, '--help'], box);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: rudder ${name}\\b`));
    expect(r.stderr).toBe('');
    // Nothing ran: no data dir, no doctor checks, no gateway.
    expect(fs.existsSync(box.env.RUDDER_HOME!)).toBe(false);
    expect(r.stdout).not.toMatch(/^[✔✘!] |Rudder is running/m);
  });

  it('help lists every command, and help <command> equals <command> --help', async () => {
    const all = await runCli(['--help'], sandbox());
    expect(all.status).toBe(0);
    for (const name of COMMANDS) expect(all.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const viaHelp = await runCli(['help', 'send'], sandbox());
    const viaFlag = await runCli(['send', '--help'], sandbox());
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaFlag.stdout).toContain('--timeout <seconds>');
    const sub = await runCli(['pairing', 'approve', '--help'], sandbox());
    expect(sub.stdout).toMatch(/^Usage: rudder pairing approve \[options\] <channel> <code>/);
  });
});

describe('usage errors', () => {
  it('with no command: the usage, exit 2', async () => {
    const r = await runCli([], sandbox());
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Usage: rudder [options] [command]');
  });

  it('an unknown command, an unknown option, a missing argument, a bad value: what was wrong, exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['frob'], /unknown command 'frob'/],
      [['status', '--jsn'], /unknown option '--jsn'/],
      [['send', 'work'], /missing required argument 'text'/],
      [
        ['send', 'work', 'hi', '--timeout', 'soon'],
        /--timeout <seconds>' argument 'soon' is invalid\. a number of seconds above 0/,
      ],
      [['start', 'now'], /too many arguments/],
      [['pane-state', '--file'], /option '-f, --file <file>' argument missing/],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(args, sandbox());
      expect(r.stderr, args.join(' ')).toMatch(msg);
      expect(r.stderr).toContain('rudder <command> --help');
      expect(r.status, args.join(' ')).toBe(2);
    }
  });
});
