/**
 * `rudder node`: run this machine as a node (agents for its own projects, behind a front), and the
 * steps that get it there: `rudder node add <name>` on the front prints a join token; `rudder node
 * join` on the node reads it from stdin (or RUDDER_NODE_TOKEN) and keeps it in the data dir (0600).
 * A token is a secret (the node's key): it never goes on a command line.
 */
import type { Command } from 'commander';

export function register(program: Command): void {
  const node = program
    .command('node')
    .description('run this machine as a node of a front (agents on several machines), or add one')
    .addHelpText(
      'after',
      `
On the front (rudder start, with a "nodes" section):  rudder node add gpu
On the node:  rudder node join  (paste the token), then  rudder node
The node runs the agents of the projects in its own config; the front pins projects to it
with projects.<name>.node. docs/nodes.md says how.`,
    );

  node
    // `rudder node` is its one name (the README's, the help's): the subcommand is only how commander runs it.
    .command('run', { isDefault: true, hidden: true })
    .description('run this machine as a node until SIGTERM or SIGINT')
    .action(async () => {
      const { runNode } = await import('../nodes/node/run.js');
      process.exitCode = await runNode();
    });

  node
    .command('add')
    .description('(on the front) give a node its credentials and print its join token')
    .argument('<name>', 'the node\'s name: letters, digits, "_" and "-"')
    .option('--url <url>', 'the NATS URL the node reaches the server at (default: the configured one)')
    .option('--allow-plaintext', 'allow a plain nats:// URL to a non-loopback address (a private network)')
    .action(async (name: string, opts: { url?: string; allowPlaintext?: boolean }) => {
      process.exitCode = await add(name, opts);
    });

  node
    .command('remove')
    .description("(on the front) take a node's credentials away")
    .argument('<name>')
    .action(async (name: string) => {
      const { dataDir } = await import('../config/load.js');
      const { removeNode } = await import('../nodes/credentials.js');
      const { reloadServer, writeServerConfig } = await import('../nodes/transport/embedded.js');
      if (!removeNode(dataDir(), name)) {
        process.stderr.write(`rudder node remove: no node "${name}".\n`);
        process.exitCode = 1;
        return;
      }
      writeServerConfig(dataDir());
      reloadServer(dataDir());
      process.stdout.write(`Removed node ${name}: its key no longer connects, and a node running with it stops.\n`);
    });

  node
    .command('join')
    .description('(on the node) read the join token from stdin (or RUDDER_NODE_TOKEN) and keep it')
    .action(async () => {
      process.exitCode = await join();
    });
}

async function add(name: string, opts: { url?: string; allowPlaintext?: boolean }): Promise<number> {
  const { dataDir, findConfigFile, loadTrustedConfig } = await import('../config/load.js');
  const { addNodeCredentials } = await import('../nodes/admin.js');
  const { silentLogger } = await import('../ops/logger.js');
  const { prepareDataDir, usePrivateUmask } = await import('../ops/data-dir.js');
  const { isRudderError } = await import('../errors.js');
  usePrivateUmask();
  prepareDataDir(dataDir());
  const cfg = loadTrustedConfig(findConfigFile()).config;
  let r: Awaited<ReturnType<typeof addNodeCredentials>>;
  try {
    r = await addNodeCredentials(dataDir(), cfg, name, silentLogger(), opts);
  } catch (err) {
    if (!isRudderError(err, 'NODE_URL_PLAINTEXT')) throw err;
    process.stderr.write(`rudder node add: ${err.message}\n`);
    return 2;
  }
  const notes = [
    r.replaced ? `Node ${name} had a key already: the old one no longer connects.` : undefined,
    r.authorization
      ? `Give your nats-server these users (public keys only; it keeps no secret), then reload it:\n${r.authorization}`
      : r.reloaded
        ? undefined
        : 'The embedded nats-server is not running: the node can connect once `rudder start` runs.',
  ].filter(Boolean);
  for (const n of notes) process.stderr.write(`${n}\n`);
  const how = r.tls ? ` over TLS${r.ca ? ' (the token carries the CA certificate nodes.nats.tls.ca names)' : ''}` : '';
  process.stderr.write(
    `Join token for node ${name} (it is the node's key: keep it secret). On the node, run \`rudder node join\` ` +
      `and paste it, then \`rudder node\`. It connects to ${r.url}${how}.\n`,
  );
  process.stdout.write(`${r.token}\n`);
  return 0;
}

async function join(): Promise<number> {
  const { dataDir } = await import('../config/load.js');
  const { decodeJoinToken, saveJoin } = await import('../nodes/credentials.js');
  const { prepareDataDir, usePrivateUmask } = await import('../ops/data-dir.js');
  const { isRudderError } = await import('../errors.js');
  usePrivateUmask();
  prepareDataDir(dataDir());
  const text = process.env.RUDDER_NODE_TOKEN ?? (await readStdin());
  try {
    const t = decodeJoinToken(text);
    saveJoin(dataDir(), t);
    process.stdout.write(`This machine joins as node ${t.name} at ${t.url}. Start it with \`rudder node\`.\n`);
    return 0;
  } catch (err) {
    if (!isRudderError(err)) throw err;
    process.stderr.write(`rudder node join: ${err.message}\n`);
    return 2;
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Paste the join token, then press Enter:\n');
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0] ?? '';
}
