/**
 * The benchmark's front and nodes: the front in this process (startInProcess, so its side of the
 * hop is tapped here), with a local project and projects pinned to nodes; each node a child
 * process (node-child.ts) joined with the key the front issued. The front's taps record when
 * each command was handed to the publisher and each node event reached its session.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config/load.js';
import { addNodeCredentials } from '../../src/nodes/admin.js';
import { NodesFront } from '../../src/nodes/front/front.js';
import { RemoteSession } from '../../src/nodes/front/remote-session.js';
import { type Command, commandId, eventId, type NodeEvent, parseNodeEvent } from '../../src/nodes/wire.js';
import { silentLogger } from '../../src/ops/logger.js';
import { rssOf } from '../../src/ops/proc.js';
import { tempDir, waitUntil } from '../../tests/support/claude-rig.js';
import { CLI, startInProcess, writeConfig } from '../../tests/support/gateway-rig.js';
import { freePort } from '../../tests/support/nodes-rig.js';
import { onReaderTake, storedAt } from './taps.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');
const now = () => performance.timeOrigin + performance.now();
export const BENCH_TIMING = { heartbeatSeconds: 1, lostAfterSeconds: 10 };

export interface TapLine {
  k: 'cmd' | 'evt' | 'stdin' | 'sent' | 'delivered' | 'recv';
  id?: string;
  /** recv: when JetStream stored the message (the server's clock, epoch ms). */
  stored?: number;
  label?: string;
  at: number;
  text?: string;
}

/** The front's side of the hop, in this process: each command sent, each event delivered. */
export const frontTaps: TapLine[] = [];
let tapped = false;
export function tapFront(): void {
  if (tapped) return;
  tapped = true;
  const send = NodesFront.prototype.send;
  NodesFront.prototype.send = function (this: NodesFront, node: string, cmd: Command) {
    frontTaps.push({ k: 'sent', id: commandId(cmd), at: now() });
    return send.call(this, node, cmd);
  };
  onReaderTake((m) => {
    const e = parseNodeEvent(m.data);
    if (e) frontTaps.push({ k: 'recv', id: eventId(e), at: now(), stored: storedAt(m) });
  });
  const deliver = RemoteSession.prototype.deliver;
  RemoteSession.prototype.deliver = function (this: RemoteSession, e: NodeEvent) {
    frontTaps.push({ k: 'delivered', id: eventId(e), at: now() });
    return deliver.call(this, e);
  };
}

export class BenchNode {
  child: ChildProcess | undefined;
  readonly home = tempDir('bench-node-home');
  readonly cwd = tempDir('bench-node-cwd');
  readonly tapFile = path.join(this.home, 'taps.jsonl');

  constructor(
    readonly name: string,
    readonly project: string,
    private readonly agent: Record<string, unknown> | 'fake',
  ) {
    writeConfig(this.cwd, {
      agent: agent === 'fake' ? {} : agent,
      projects: { [project]: { path: tempDir(`bench-${project}`) } },
      steering: { spareProcess: false },
      nodes: BENCH_TIMING,
    });
  }

  async start(token: string): Promise<void> {
    const child = spawn(process.execPath, ['--import', TSX, path.join(HERE, 'node-child.ts')], {
      cwd: this.cwd,
      env: {
        ...process.env,
        RUDDER_HOME: this.home,
        RUDDER_NODE_TOKEN: token,
        BENCH_TAP_FILE: this.tapFile,
        BENCH_NODE_AGENT: this.agent === 'fake' ? 'fake' : 'real',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await waitUntil(() => /^ready /m.test(out) || child.exitCode !== null, 60_000);
    if (!/^ready /m.test(out)) throw new Error(`bench node ${this.name} did not start: ${out}`);
  }

  taps(): TapLine[] {
    if (!fs.existsSync(this.tapFile)) return [];
    return fs
      .readFileSync(this.tapFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as TapLine);
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null) return;
    c.kill('SIGTERM');
    await new Promise((r) => c.once('exit', r));
  }
}

export type Front = Awaited<ReturnType<typeof startInProcess>>;

/** A front with `local` (a project of its own) and one project per node, and the nodes started. */
export async function startBenchCluster(
  agent: Record<string, unknown>,
  nodes: Array<{ name: string; agent: Record<string, unknown> | 'fake' }>,
): Promise<{
  front: Front;
  nodes: BenchNode[];
  restingRss(agent: Record<string, unknown>): Promise<number>;
  stop(): Promise<void>;
}> {
  tapFront();
  const home = tempDir('bench-front-home');
  const bench = nodes.map((n) => new BenchNode(n.name, `on-${n.name}`, n.agent));
  const config = {
    agent,
    projects: {
      local: { path: tempDir('bench-local') },
      ...Object.fromEntries(bench.map((n) => [n.project, { node: n.name }])),
    },
    nodes: { embeddedPort: await freePort(), ...BENCH_TIMING },
  };
  const front = await startInProcess(config, { home });
  for (const n of bench) {
    const added = await addNodeCredentials(home, parseConfig(config), n.name, silentLogger());
    await n.start(added.token);
  }
  await waitUntil(async () => {
    const s = (await (await front.api('GET', '/api/status')).json()) as { nodes?: Array<{ state: string }> };
    return (s.nodes ?? []).filter((x) => x.state === 'up').length === bench.length;
  }, 60_000);
  return {
    front,
    nodes: bench,
    /** A node as `npm start`'s build runs it (node dist/cli/main.js node), joined and idle for 5 s: its RSS. */
    async restingRss(agentConfig: Record<string, unknown>) {
      const added = await addNodeCredentials(home, parseConfig(config), 'resting', silentLogger());
      const cwd = tempDir('bench-rest-cwd');
      writeConfig(cwd, {
        agent: agentConfig,
        projects: { idle: { path: tempDir('bench-rest-proj') } },
        steering: { spareProcess: false },
        nodes: BENCH_TIMING,
      });
      const child = spawn(process.execPath, [CLI, 'node'], {
        cwd,
        env: { ...process.env, RUDDER_HOME: tempDir('bench-rest-home'), RUDDER_NODE_TOKEN: added.token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      try {
        await waitUntil(() => /is running/.test(out) || child.exitCode !== null, 60_000);
        await new Promise((r) => setTimeout(r, 5_000));
        return rssOf(child.pid!) ?? NaN;
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      }
    },
    async stop() {
      await Promise.all(bench.map((n) => n.stop()));
      await front.stop();
    },
  };
}
