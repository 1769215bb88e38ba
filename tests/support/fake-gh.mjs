#!/usr/bin/env node
// A stand-in for the GitHub CLI: appends its argv to $FAKE_GH_LOG (one JSON line a call);
// `auth status` succeeds only with FAKE_GH_AUTH=ok; `pr create` prints a pull request URL.
import fs from 'node:fs';

const args = process.argv.slice(2);
if (process.env.FAKE_GH_LOG)
  fs.appendFileSync(process.env.FAKE_GH_LOG, `${JSON.stringify({ args, cwd: process.cwd() })}\n`);
if (args[0] === 'auth' && args[1] === 'status') {
  if (process.env.FAKE_GH_AUTH === 'ok') {
    process.stdout.write('github.com\n  ✓ Logged in to github.com account test (keyring)\n');
    process.exit(0);
  }
  process.stderr.write('You are not logged into any GitHub hosts. To log in, run: gh auth login\n');
  process.exit(1);
}
if (args[0] === 'pr' && args[1] === 'create') {
  process.stdout.write('https://github.com/example/repo/pull/7\n');
  process.exit(0);
}
process.stderr.write(`fake gh: unknown command ${args.join(' ')}\n`);
process.exit(2);
