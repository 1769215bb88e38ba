/**
 * Who may connect to the front's NATS server, as nkeys: the front keeps its own seed and every
 * node's PUBLIC key (nats/nodes.json in its data dir); a node keeps its own seed, which reaches
 * it once, in the join token `rudder node add <name>` prints. No secret of a node stays on the
 * front. Files are 0600 in a 0700 directory; a seed never reaches argv or a log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import { type NatsServerConfig, nodeNameSchema, plaintextProblem } from '../config/nodes-schema.js';
import { RudderError } from '../errors.js';
import { registerSecret } from '../ops/redact.js';

export interface NodeEntry {
  publicKey: string;
  addedAt: number;
}

/** The front's NATS directory: credentials, the embedded server's config, store, pid and port. */
export function natsDir(dataDir: string): string {
  const dir = path.join(dataDir, 'nats');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  return dir;
}

function writePrivate(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** A new nkey user: its seed (secret) and public key. */
export function newUser(): { seed: string; publicKey: string } {
  const kp = nkeys.createUser();
  const seed = new TextDecoder().decode(kp.getSeed());
  registerSecret(seed);
  return { seed, publicKey: kp.getPublicKey() };
}

/** The public key of a seed; NODE_JOIN_INVALID when it is not a user seed. */
export function publicKeyOf(seed: string): string {
  try {
    return nkeys.fromSeed(new TextEncoder().encode(seed)).getPublicKey();
  } catch (err) {
    throw new RudderError('NODE_JOIN_INVALID', 'Its key is not an nkey seed.', {}, err);
  }
}

/** The front's own nkey seed, made on first use. */
export function frontSeed(dataDir: string): string {
  const file = path.join(natsDir(dataDir), 'front.seed');
  if (!fs.existsSync(file)) writePrivate(file, `${newUser().seed}\n`);
  const seed = fs.readFileSync(file, 'utf8').trim();
  registerSecret(seed);
  return seed;
}

/** The nodes added with `rudder node add`, by name. */
export function readNodes(dataDir: string): Record<string, NodeEntry> {
  const file = path.join(natsDir(dataDir), 'nodes.json');
  if (!fs.existsSync(file)) return {};
  const v = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes?: Record<string, NodeEntry> };
  return v.nodes ?? {};
}

/** Adds (or re-keys) a node; returns its seed, which only the join token carries from here. */
export function addNode(dataDir: string, name: string): { seed: string; publicKey: string; replaced: boolean } {
  const ok = nodeNameSchema.safeParse(name);
  if (!ok.success) throw new RudderError('CONFIG_INVALID', `Node name "${name}": ${ok.error.issues[0]?.message}.`);
  const nodes = readNodes(dataDir);
  const user = newUser();
  const replaced = name in nodes;
  nodes[name] = { publicKey: user.publicKey, addedAt: Date.now() };
  writePrivate(path.join(natsDir(dataDir), 'nodes.json'), `${JSON.stringify({ nodes }, null, 2)}\n`);
  return { ...user, replaced };
}

export function removeNode(dataDir: string, name: string): boolean {
  const nodes = readNodes(dataDir);
  if (!(name in nodes)) return false;
  delete nodes[name];
  writePrivate(path.join(natsDir(dataDir), 'nodes.json'), `${JSON.stringify({ nodes }, null, 2)}\n`);
  return true;
}

// ---- the join token ----

export interface JoinToken {
  name: string;
  /**
   * The NATS URL the node connects to (the node's config may name another way to the same server). tls:// when
   * the front's server speaks TLS, whatever scheme the front's config or `--url` wrote.
   */
  url: string;
  seed: string;
  /** The CA certificate (PEM, public) the front trusts for its server: the node trusts it for that server too. */
  ca?: string;
  /** Plain text off loopback, said out loud on the front (its allowPlaintext, or `node add --allow-plaintext`). */
  allowPlaintext?: boolean;
}

const PREFIX = 'rudder-join-1.';

export function encodeJoinToken(t: JoinToken): string {
  return PREFIX + Buffer.from(JSON.stringify(t)).toString('base64url');
}

export function decodeJoinToken(text: string): JoinToken {
  const s = text.trim();
  if (!s.startsWith(PREFIX)) throw new RudderError('NODE_JOIN_INVALID', `It must start with ${PREFIX}.`);
  let v: Partial<JoinToken>;
  try {
    v = JSON.parse(Buffer.from(s.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch (err) {
    throw new RudderError('NODE_JOIN_INVALID', 'It is cut or altered.', {}, err);
  }
  if (typeof v.name !== 'string' || typeof v.url !== 'string' || typeof v.seed !== 'string')
    throw new RudderError('NODE_JOIN_INVALID', 'It lacks the name, the URL or the key.');
  if (v.ca !== undefined && typeof v.ca !== 'string') throw new RudderError('NODE_JOIN_INVALID', 'Its CA is not PEM.');
  publicKeyOf(v.seed);
  registerSecret(v.seed);
  const t: JoinToken = {
    name: v.name,
    url: v.url,
    seed: v.seed,
    ...(v.ca ? { ca: v.ca } : {}),
    ...(v.allowPlaintext === true ? { allowPlaintext: true } : {}),
  };
  checkJoinUrl(t);
  return t;
}

/** The plaintext rule on a join token's URL: NODE_URL_PLAINTEXT when the node would talk to the front in clear. */
export function checkJoinUrl(t: Pick<JoinToken, 'url' | 'allowPlaintext'>): void {
  const problem = plaintextProblem(t.url, { tls: false, allowPlaintext: !!t.allowPlaintext });
  if (problem)
    throw new RudderError(
      'NODE_URL_PLAINTEXT',
      `${t.url}: ${problem.replace('or set allowPlaintext', "or set the front's nodes.nats.allowPlaintext")}.`,
      { url: t.url },
    );
}

/**
 * Where a joined node connects and how: its own config's `nodes.nats` when it names one (checked by the config's
 * schema), else the token's URL and CA, checked by the plaintext rule (a token saved by an older version too).
 */
export function nodeServer(
  join: JoinToken,
  own: NatsServerConfig | undefined,
): { url: string; tls?: NatsServerConfig['tls']; caPem?: string } {
  if (own) return { url: own.url, tls: own.tls };
  checkJoinUrl(join);
  return { url: join.url, ...(join.ca ? { caPem: join.ca } : {}) };
}

/** The node's side: the join token saved in its data dir (0600) by `rudder node join`. */
export function nodeCredentialsFile(dataDir: string): string {
  return path.join(dataDir, 'node-join.json');
}

export function saveJoin(dataDir: string, t: JoinToken): void {
  writePrivate(nodeCredentialsFile(dataDir), `${JSON.stringify(t)}\n`);
}

export function loadJoin(dataDir: string): JoinToken | undefined {
  const file = nodeCredentialsFile(dataDir);
  if (!fs.existsSync(file)) return undefined;
  const t = JSON.parse(fs.readFileSync(file, 'utf8')) as JoinToken;
  registerSecret(t.seed);
  return t;
}
