/**
 * `nodes.nats: "embedded"`: the front runs nats-server as its child process, on loopback only:
 *   nats-server -js -a 127.0.0.1 -p PORT -c nats.conf -P nats.pid
 * with the store dir in nats.conf (`jetstream { store_dir }`: given as -sd, a config reload for a
 * new node would switch JetStream off on 2.9.10). It is ready when its log says "Server is ready",
 * and stopped with the gateway (SIGTERM, then
 * SIGKILL). A server left behind by a front killed with -9 is found by its pid file and stopped
 * first, so nothing outlives the gateway for longer than its next start. Its config holds only
 * public keys (credentials.ts) and each user's permissions (permissions.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { alive, cmdlineOf } from '../../ops/proc.js';
import { frontSeed, natsDir, publicKeyOf, readNodes } from '../credentials.js';
import { accountsBlock } from './permissions.js';

const READY = /Server is ready/;
const START_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;

/** nats-server: the configured path, else on PATH, else Debian's /usr/sbin/nats-server. */
export function resolveNatsServer(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const candidates = configured
    ? [configured]
    : [
        ...(env.PATH ?? '')
          .split(path.delimiter)
          .filter(Boolean)
          .map((d) => path.join(d, 'nats-server')),
        '/usr/sbin/nats-server',
        '/usr/local/sbin/nats-server',
      ];
  for (const c of candidates) {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      if (fs.statSync(c).isFile()) return c;
    } catch {
      // not here
    }
  }
  throw new RudderError('NATS_SERVER_MISSING', configured ? `nodes.natsServerBin is ${configured}.` : undefined);
}

/** Writes the server's config: every added node's key and permissions (rudder node add rewrites it). */
export function writeServerConfig(dataDir: string): string {
  const dir = natsDir(dataDir);
  const file = path.join(dir, 'nats.conf');
  const store = path.join(dir, 'jetstream');
  fs.mkdirSync(store, { recursive: true, mode: 0o700 });
  const text = [
    '# Written by Rudder at each start and by `rudder node add`; edits are overwritten.',
    `jetstream { store_dir: ${JSON.stringify(store)} }`,
    accountsBlock(publicKeyOf(frontSeed(dataDir)), readNodes(dataDir)),
    '',
  ].join('\n');
  fs.writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

/** Tells a running embedded server to read its config again (a node was added); false when none runs. */
export function reloadServer(dataDir: string): boolean {
  const pid = runningServerPid(dataDir);
  if (!pid) return false;
  process.kill(pid, 'SIGHUP');
  return true;
}

function runningServerPid(dataDir: string): number | undefined {
  const dir = natsDir(dataDir);
  const pidFile = path.join(dir, 'nats.pid');
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  } catch {
    return undefined;
  }
  // Only a nats-server started with this data dir's config counts: a reused pid is someone else's.
  const cmd = pid > 0 && alive(pid) ? cmdlineOf(pid) : undefined;
  return cmd?.includes('nats-server') && cmd.includes(path.join(dir, 'nats.conf')) ? pid : undefined;
}

/** The port the running embedded server listens on (for `rudder node add`), if one runs. */
export function embeddedPort(dataDir: string): number | undefined {
  if (!runningServerPid(dataDir)) return undefined;
  const v = Number(fs.readFileSync(path.join(natsDir(dataDir), 'port'), 'utf8').trim());
  return Number.isInteger(v) && v > 0 ? v : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

interface Spawned {
  child: ChildProcess;
  tail(): string;
}

/** Starts nats-server and waits for "Server is ready"; NATS_SERVER_FAILED with its last lines otherwise. */
async function spawnServer(bin: string, args: string[], port: number): Promise<Spawned> {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let ready = false;
  const ok = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
    const keep = (d: Buffer) => {
      out = (out + d.toString('utf8')).slice(-8000);
      if (!ready && READY.test(out)) {
        ready = true;
        clearTimeout(timer);
        resolve(true);
      }
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const fail = () => {
      clearTimeout(timer);
      resolve(false);
    };
    child.once('exit', fail);
    child.once('error', fail);
  });
  if (!(await ok)) {
    child.kill('SIGKILL');
    const last = out.trim().split('\n').slice(-3).join(' | ');
    throw new RudderError('NATS_SERVER_FAILED', `${bin} on port ${port}: ${last || 'no output'}`, { port });
  }
  return { child, tail: () => out };
}

/** The supervised child: started again (same port, same store) when it dies on its own. */
export class EmbeddedServer {
  private stopping = false;
  private restarts = 0;

  private constructor(
    private current: Spawned,
    readonly port: number,
    private readonly respawn: () => Promise<Spawned>,
    private readonly log: Logger,
  ) {
    this.supervise();
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.current.child.pid;
  }

  static async start(opts: { dataDir: string; port: number; bin?: string; log: Logger }): Promise<EmbeddedServer> {
    const { dataDir, log } = opts;
    const bin = resolveNatsServer(opts.bin);
    const dir = natsDir(dataDir);
    const left = runningServerPid(dataDir);
    if (left) {
      log.warn({ pid: left }, 'stopping the nats-server a previous run left behind');
      await stopPid(left);
    }
    const conf = writeServerConfig(dataDir);
    const port = opts.port || (await freePort());
    const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-c', conf, '-P', path.join(dir, 'nats.pid')];
    const first = await spawnServer(bin, args, port);
    fs.writeFileSync(path.join(dir, 'port'), `${port}\n`, { mode: 0o600 });
    log.info({ pid: first.child.pid, port, dir }, 'embedded nats-server started');
    return new EmbeddedServer(first, port, () => spawnServer(bin, args, port), log);
  }

  private supervise(): void {
    const { child } = this.current;
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      this.log.error(
        { code, signal, output: this.current.tail().slice(-500) },
        'the nats-server exited; starting it again',
      );
      void this.restart();
    });
  }

  private async restart(): Promise<void> {
    while (!this.stopping) {
      await new Promise((r) => setTimeout(r, Math.min(5000, 100 * 2 ** Math.min(this.restarts++, 6))));
      if (this.stopping) return;
      try {
        this.current = await this.respawn();
        this.restarts = 0;
        this.log.info({ pid: this.current.child.pid, port: this.port }, 'embedded nats-server started again');
        this.supervise();
        return;
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'the nats-server did not start again; trying again');
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const c = this.current.child;
    if (c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    this.log.info({ pid: c.pid }, 'embedded nats-server stopped');
  }
}

async function stopPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const end = Date.now() + STOP_GRACE_MS;
  while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  if (alive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
