/**
 * `rudder doctor`'s checks for agents on several machines. On a front (a nodes section): the
 * nats-server binary (embedded), the connection with the front's key, JetStream, the streams and
 * consumers, and each node's last heartbeat and projects against what the config pins to it. On a
 * node (a saved join): the connection with its key and its command consumer. Changes nothing.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { type Check, failed, passed } from '../agents/common/doctor.js';
import type { Config, NodesConfig } from '../config/schema.js';
import { silentLogger } from '../ops/logger.js';
import { decodeJoinToken, type JoinToken, loadJoin, nodeServer } from './credentials.js';
import { connectNats } from './transport/connection.js';
import { resolveNatsServer } from './transport/embedded.js';
import { COMMAND_STREAM, EVENT_STREAM, FRONT_CONSUMER, nodeConsumer, PRESENCE_BUCKET, parsePresence } from './wire.js';

const exec = promisify(execFile);
const TIMEOUT_MS = 5_000;

function readIf(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export async function nodeChecks(config: Config, dataDir: string): Promise<Check[]> {
  const checks: Check[] = [];
  if (config.nodes) await frontChecks(config, dataDir, checks);
  let join: JoinToken | undefined;
  try {
    join = process.env.RUDDER_NODE_TOKEN ? decodeJoinToken(process.env.RUDDER_NODE_TOKEN) : loadJoin(dataDir);
  } catch (err) {
    checks.push(failed('this node', (err as Error).message));
  }
  if (join) await joinedChecks(config, dataDir, join, checks);
  return checks;
}

async function frontChecks(config: Config, dataDir: string, checks: Check[]): Promise<void> {
  const nodes = config.nodes!;
  const dir = path.join(dataDir, 'nats');
  const url = nodes.nats === 'embedded' ? await embeddedUrl(nodes, dir, checks) : nodes.nats.url;
  if (!url) return;
  const seed = readIf(path.join(dir, 'front.seed'));
  if (!seed) {
    const fix = '`rudder start` makes it (and `rudder node add <name>` too).';
    checks.push(failed('NATS connection', `no front key yet in ${dir}`, fix, false));
    return;
  }
  let nc: NatsConnection;
  try {
    const tls = nodes.nats === 'embedded' ? undefined : nodes.nats.tls;
    nc = await connectNats({ url, seed, who: 'front', tls, log: silentLogger(), timeoutMs: TIMEOUT_MS });
  } catch (err) {
    const fix =
      nodes.nats === 'embedded'
        ? 'The embedded nats-server runs while `rudder start` runs; start it.'
        : 'Check nodes.nats.url and TLS, and that the server has the users `rudder node add` printed.';
    checks.push(failed('NATS connection', (err as Error).message, fix, nodes.nats !== 'embedded'));
    return;
  }
  try {
    checks.push(passed('NATS connection', url));
    await streamChecks(nc, config, dataDir, checks);
  } finally {
    await nc.close().catch(() => undefined);
  }
}

/** The embedded server's binary (checked) and the address it listens on; undefined when there is no binary. */
async function embeddedUrl(nodes: NodesConfig, dir: string, checks: Check[]): Promise<string | undefined> {
  try {
    const bin = resolveNatsServer(nodes.natsServerBin);
    const { stdout } = await exec(bin, ['--version'], { timeout: TIMEOUT_MS });
    checks.push(passed('nats-server', `${stdout.trim()} at ${bin}`));
  } catch (err) {
    checks.push(
      failed('nats-server', (err as Error).message, 'apt-get install -y nats-server, or set nodes.natsServerBin.'),
    );
    return undefined;
  }
  return `nats://127.0.0.1:${readIf(path.join(dir, 'port')) ?? nodes.embeddedPort}`;
}

async function streamChecks(nc: NatsConnection, config: Config, dataDir: string, checks: Check[]): Promise<void> {
  let jsm: Awaited<ReturnType<typeof jetstreamManager>>;
  try {
    jsm = await jetstreamManager(nc);
    const info = await jsm.getAccountInfo();
    checks.push(passed('JetStream', `${info.streams} streams, ${info.storage} bytes`));
  } catch (err) {
    const fix = 'Run nats-server with -js (the embedded one does), and give the account JetStream.';
    checks.push(failed('JetStream', (err as Error).message, fix));
    return;
  }
  for (const stream of [COMMAND_STREAM, EVENT_STREAM]) {
    try {
      const s = await jsm.streams.info(stream);
      checks.push(passed(`stream ${stream}`, `${s.state.messages} waiting`));
    } catch {
      checks.push(failed(`stream ${stream}`, 'missing', 'rudder start makes it.'));
    }
  }
  try {
    const c = await jsm.consumers.info(EVENT_STREAM, FRONT_CONSUMER);
    checks.push({
      name: 'front consumer',
      ok: c.config.ack_policy === 'explicit',
      required: true,
      detail: `ack ${c.config.ack_policy}, ${c.num_pending} pending, ${c.num_ack_pending} unacknowledged`,
    });
  } catch {
    checks.push(failed('front consumer', 'missing', 'rudder start makes it.'));
  }
  const pinned = new Map<string, string[]>();
  for (const [name, p] of Object.entries(config.projects ?? {}))
    if (p.node) pinned.set(p.node, [...(pinned.get(p.node) ?? []), name]);
  const added = Object.keys(readNodesIf(dataDir));
  const kv = await new Kvm(nc).open(PRESENCE_BUCKET).catch(() => undefined);
  for (const node of [...new Set([...added, ...pinned.keys()])].sort())
    checks.push(await nodeCheck(jsm, kv, node, added.includes(node), pinned.get(node) ?? [], config));
}

function readNodesIf(dataDir: string): Record<string, unknown> {
  const text = readIf(path.join(dataDir, 'nats', 'nodes.json'));
  return text ? ((JSON.parse(text) as { nodes?: Record<string, unknown> }).nodes ?? {}) : {};
}

async function nodeCheck(
  jsm: Awaited<ReturnType<typeof jetstreamManager>>,
  kv: Awaited<ReturnType<Kvm['open']>> | undefined,
  node: string,
  added: boolean,
  pinned: string[],
  config: Config,
): Promise<Check> {
  const name = `node ${node}`;
  if (!added) return failed(name, 'pinned projects, no key', `rudder node add ${node}`);
  const consumer = await jsm.consumers.info(COMMAND_STREAM, nodeConsumer(node)).catch(() => undefined);
  const entry = await kv?.get(node).catch(() => null);
  const p = entry?.value.length ? parsePresence(entry.value) : undefined;
  if (!p) {
    const waiting = consumer ? `, ${consumer.num_pending} commands waiting` : '';
    return failed(name, `never heard from (or stopped)${waiting}`, 'Start `rudder node` there.', false);
  }
  const age = Math.round((Date.now() - entry!.created.getTime()) / 1000);
  const lost = age > config.nodes!.lostAfterSeconds;
  const missing = pinned.filter((x) => !p.projects.some((q) => q.name === x));
  const has = p.projects.map((q) => q.name).join(', ') || 'none';
  const gap = missing.length ? `; pinned here but not on it: ${missing.join(', ')}` : '';
  return {
    name,
    ok: !lost && missing.length === 0,
    required: false,
    detail: `${lost ? 'lost' : 'up'}: last heartbeat ${age}s ago, Rudder ${p.version}, projects ${has}${gap}`,
    fix: lost ? 'Is `rudder node` running there and able to reach NATS?' : `Add ${missing.join(', ')} to its config.`,
  };
}

async function joinedChecks(config: Config, dataDir: string, join: JoinToken, checks: Check[]): Promise<void> {
  const own = typeof config.nodes?.nats === 'object' ? config.nodes.nats : undefined;
  const url = own?.url ?? join.url;
  try {
    const server = nodeServer(join, own);
    const nc = await connectNats({
      ...server,
      seed: join.seed,
      who: join.name,
      log: silentLogger(),
      timeoutMs: TIMEOUT_MS,
    });
    try {
      const { jetstream } = await import('@nats-io/jetstream');
      await (await jetstream(nc).consumers.get(COMMAND_STREAM, nodeConsumer(join.name))).info();
      checks.push(passed(`this node (${join.name})`, `its key connects to ${url}`));
    } finally {
      await nc.close().catch(() => undefined);
    }
  } catch (err) {
    const fix =
      `Is the front running? Else ask it for a new token (rudder node add ${join.name}) and run ` +
      `rudder node join with ${dataDir} as RUDDER_HOME.`;
    checks.push(failed(`this node (${join.name})`, `${url}: ${(err as Error).message}`, fix));
  }
}
