/**
 * Agents on several machines, on this one: a front (`rudder start` as a child, with an embedded
 * nats-server on a free port with its own store dir) and `rudder node` children, each with its own
 * data dir, config, projects and agent HOME, all on the real CLI against the mock Messages API.
 * The front's projects are pinned to the nodes; a node joins with the token `rudder node add`
 * printed (passed in RUDDER_NODE_TOKEN, never argv). Time budgets come from the measured start-up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { tempDir, waitUntil } from './claude-rig.js';
import { agentConfig, CLI, startChild, writeConfig } from './gateway-rig.js';
import { type MockApi, startMockApi } from './mock-anthropic.js';
import { cleanEnv, runCli } from './run-cli.js';

/** Heartbeats and the lost threshold of the tests: fast, and still tolerant of a loaded machine. */
export const NODE_TIMING = { heartbeatSeconds: 0.5, lostAfterSeconds: 4 };

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface NodeSpec {
  name: string;
  /** Project name → its directory on that node (made here). */
  projects: string[];
  agent?: Record<string, unknown>;
  /** The node's own `nodes.nats` (another way to the server than its token's URL, and TLS). */
  nats?: Record<string, unknown>;
}

export type Front = Awaited<ReturnType<typeof startChild>> & { natsPort: number };

export class NodeProc {
  child: ChildProcess | undefined;
  out = '';
  readonly home = tempDir('node-home');
  readonly cwd = tempDir('node-cwd');
  readonly claudeHome = tempDir('node-chome');
  readonly dirs: Record<string, string> = {};
  readonly configFile: string;

  constructor(
    readonly spec: NodeSpec,
    mockUrl: string,
    readonly token: string,
    private readonly budget: () => number,
  ) {
    for (const p of spec.projects) this.dirs[p] = tempDir(`proj-${spec.name}-${p}`);
    this.configFile = writeConfig(this.cwd, {
      agent: agentConfig(mockUrl, this.claudeHome, spec.agent ?? {}),
      projects: Object.fromEntries(spec.projects.map((p) => [p, { path: this.dirs[p] }])),
      steering: { spareProcess: false },
      nodes: { ...NODE_TIMING, ...(spec.nats ? { nats: spec.nats } : {}) },
      log: { level: 'debug' },
    });
  }

  /** Starts (or restarts) the node and waits until it runs. */
  async start(env: Record<string, string> = {}): Promise<void> {
    const child = spawn(process.execPath, [CLI, 'node'], {
      cwd: this.cwd,
      env: { ...cleanEnv(), RUDDER_HOME: this.home, RUDDER_NODE_TOKEN: this.token, ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.out = '';
    child.stdout!.on('data', (d) => (this.out += d));
    child.stderr!.on('data', (d) => (this.out += d));
    await waitUntil(() => /is running/.test(this.out) || child.exitCode !== null, this.budget());
    if (!/is running/.test(this.out)) throw new Error(`node ${this.spec.name} did not start:\n${this.out}`);
  }

  running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async signal(sig: NodeJS.Signals): Promise<void> {
    this.child?.kill(sig);
    if (sig === 'SIGKILL' || sig === 'SIGTERM') await this.exited();
  }

  exited(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
    return new Promise((r) => c.once('exit', () => r()));
  }

  log(): string {
    try {
      return fs.readFileSync(path.join(this.home, 'rudder.log'), 'utf8');
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    if (!this.running()) return;
    this.child!.kill('SIGCONT');
    await this.signal('SIGTERM');
  }
}

export interface Cluster {
  front: Front;
  frontHome: string;
  frontCwd: string;
  config: Record<string, unknown>;
  nodes: Record<string, NodeProc>;
  /** A generous wait for anything that takes a start-up or a turn, from the measured front start-up. */
  budget(): number;
  /** Starts the front again on the same home and port (after a kill -9). */
  restartFront(): Promise<Front>;
  stop(): Promise<void>;
}

export async function addNode(frontHome: string, frontCwd: string, name: string): Promise<string> {
  const r = await runCli(['node', 'add', name], { cwd: frontCwd, env: cleanEnv({ RUDDER_HOME: frontHome }) });
  if (r.status !== 0) throw new Error(`rudder node add ${name} failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** A front with the projects of every node pinned to it, and the nodes started. */
export interface ClusterOptions {
  front?: Record<string, unknown>;
  startNodes?: boolean;
}

export async function startCluster(mockUrl: string, specs: NodeSpec[], opts: ClusterOptions = {}): Promise<Cluster> {
  const frontHome = tempDir('front-home');
  const frontCwd = tempDir('front-cwd');
  const natsPort = await freePort();
  const projects = Object.fromEntries(specs.flatMap((s) => s.projects.map((p) => [p, { node: s.name }])));
  const config = {
    agent: agentConfig(mockUrl, tempDir('front-chome')),
    projects,
    nodes: { embeddedPort: natsPort, ...NODE_TIMING },
    ...opts.front,
  };
  const t0 = Date.now();
  let front = Object.assign(await startChild(config, { home: frontHome, cwd: frontCwd }), { natsPort });
  let budget = Math.min(120_000, Math.max(30_000, (Date.now() - t0) * 15));
  const nodes: Record<string, NodeProc> = {};
  try {
    for (const s of specs)
      nodes[s.name] = new NodeProc(s, mockUrl, await addNode(frontHome, frontCwd, s.name), () => budget);
    if (opts.startNodes !== false) {
      const n0 = Date.now();
      await Promise.all(Object.values(nodes).map((n) => n.start()));
      budget = Math.max(budget, Math.min(120_000, (Date.now() - n0) * 15));
      await waitUntil(async () => (await upNodes(front)).length === specs.length, budget);
    }
  } catch (err) {
    // What started is stopped: nothing of a failed start outlives the test.
    await Promise.all(Object.values(nodes).map((n) => n.stop()));
    await front.stop();
    throw err;
  }
  return {
    get front() {
      return front;
    },
    frontHome,
    frontCwd,
    config,
    nodes,
    budget: () => budget,
    async restartFront() {
      front = Object.assign(await startChild(config, { home: frontHome, cwd: frontCwd, port: portOf(front) }), {
        natsPort,
      });
      return front;
    },
    async stop() {
      await Promise.all(Object.values(nodes).map((n) => n.stop()));
      await front.stop();
    },
  } as Cluster;
}

function portOf(front: Front): number {
  return Number(new URL(front.ep.base).port);
}

/** The nodes the front's status reports up. */
export async function upNodes(front: Front): Promise<string[]> {
  try {
    const s = (await (await front.api('GET', '/api/status')).json()) as {
      nodes?: Array<{ name: string; state: string }>;
    };
    return (s.nodes ?? []).filter((n) => n.state === 'up').map((n) => n.name);
  } catch {
    return [];
  }
}

/** A web conversation in a project (POST /api/conversations); its key. */
export async function conversationIn(front: Front, project: string): Promise<string> {
  const r = await front.api('POST', '/api/conversations', { project });
  if (!r.ok) throw new Error(`creating a conversation in ${project}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { id: string }).id;
}

/** What a message (or a command) of the conversation is answered with: its reply or notice (`kind` to say which). */
export async function answerOf(cl: Cluster, c: string, text: string, kind?: 'reply' | 'notice'): Promise<string> {
  const w = cl.front.watch(c);
  await w.ready;
  try {
    const m = await cl.front.post(c, text);
    return String((await w.waitReply(m.messageId, kind, cl.budget())).data.text);
  } finally {
    w.close();
  }
}

export function frontLog(home: string): string {
  try {
    return fs.readFileSync(path.join(home, 'rudder.log'), 'utf8');
  } catch {
    return '';
  }
}

/**
 * A file's cluster: a mock Messages API and a cluster on it, started before the file's tests and stopped after them.
 * `started` hands both to the file's own variables; options given as a function are read when the cluster starts
 * (after the file's earlier hooks, e.g. a fake chat platform they name).
 */
export function useCluster(
  specs: NodeSpec[],
  started: (s: { mock: MockApi; cl: Cluster }) => void,
  opts: ClusterOptions | (() => ClusterOptions) = {},
): void {
  let mock: MockApi | undefined;
  let cl: Cluster | undefined;
  beforeAll(async () => {
    mock = await startMockApi();
    cl = await startCluster(mock.url, specs, typeof opts === 'function' ? opts() : opts);
    started({ mock, cl });
  }, 240_000);
  afterAll(async () => {
    await cl?.stop();
    await mock?.close();
  });
}
