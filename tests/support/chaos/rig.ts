/**
 * The world of one chaos run: the mock Messages API (in this process), and a gateway child process
 * with its own RUDDER_HOME, agent HOME and working directory, driven through its HTTP API and the
 * slow channel's inbound endpoint. The agent binary is the fake CLI in `wrap` mode: the real CLI
 * behind a pass-through that injects malformed frames, stderr floods and cut-off output on demand.
 * With `nodes` > 0 the gateway is a front with an embedded nats-server and the agents run on that
 * many `rudder node` processes (nodes.ts), one project each; the conversations are spread over them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, type Endpoint } from '../../../src/cli/client.js';
import { CLAUDE_BIN, FAKE_CLAUDE, mockAgentEnv, tempDir, waitUntil } from '../claude-rig.js';
import { writeConfig } from '../gateway-rig.js';
import type { MockApi } from '../mock-anthropic.js';
import { childrenOf, processesOfRun, procInfo } from '../procs.js';
import { JOB_CONFIG } from './jobs.js';
import { CHAOS_NODE_TIMING, ChaosNode, natsPid } from './nodes.js';
import { SLOW_CHANNEL } from './slow-channel.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');
/**
 * CHAOS_GATEWAY_CHILD runs another entry (e.g. one that patches a fix in, to try it under chaos); like
 * gateway-child.ts, it must admit the slow channel's owner.
 */
const CHILD = process.env.CHAOS_GATEWAY_CHILD ?? path.join(HERE, 'gateway-child.ts');

export interface Status {
  sessions: Array<{ conversationId: string; pid: number | null; state: string; backend: string }>;
  nodes?: Array<{
    name: string;
    state: string;
    sessions: Array<{ conversationId: string; pid: number | null; state: string }>;
  }>;
  queues: Array<{ conversationId: string; depth: number; inFlight: number; pausedUntil: string | null }>;
  owedReplies: number;
  messages: Record<string, number>;
}

export interface Accepted {
  messageId: string;
  conversation: string;
  text: string;
  disposition: string;
}

export class ChaosRig {
  /** The rigs of the runs under way, so an interrupted runner can stop what they started. */
  static readonly live = new Set<ChaosRig>();
  readonly home = tempDir('chaos-home');
  readonly agentHome = tempDir('chaos-chome');
  readonly cwd = tempDir('chaos-cwd');
  readonly faultDir = tempDir('chaos-faults');
  readonly slowLog: string;
  readonly configFile: string;
  /** Every message the gateway acknowledged as accepted (the sender got a message id back). */
  readonly accepted: Accepted[] = [];
  /** Every agent pid seen in a status report, and the real CLI processes under them. */
  readonly seenPids = new Set<number>();
  /** Output of every gateway child, for the report when something goes wrong. */
  readonly output: string[] = [];
  ep: Endpoint | undefined;
  slowUrl: string | undefined;
  child: ChildProcess | undefined;
  starts = 0;
  /** The nodes the agents run on (none: the gateway runs them itself). */
  readonly nodes: ChaosNode[] = [];

  constructor(
    readonly mock: MockApi,
    /** jobs: the config's schedule and webhook of a seeded run (jobs.ts). */
    opts: { nodes?: number; natsPort?: number; jobs?: boolean } = {},
  ) {
    ChaosRig.live.add(this);
    this.slowLog = path.join(this.home, 'slow-channel.jsonl');
    const agent = {
      claudeBin: FAKE_CLAUDE,
      cwd: this.cwd,
      permissionMode: 'bypassPermissions',
      interruptGraceSeconds: 3,
      passEnv: [],
      env: {
        FAKE_CLAUDE_MODE: 'wrap',
        FAKE_CLAUDE_REAL: CLAUDE_BIN,
        FAKE_FAULT_DIR: this.faultDir,
        // A subscription login, so 429s can carry a reset time.
        ...mockAgentEnv(mock.url, this.agentHome, { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-chaos' }),
      },
    };
    for (let i = 0; i < (opts.nodes ?? 0); i++) this.nodes.push(new ChaosNode(`n${i}`, agent));
    const nodes = this.nodes.length
      ? {
          nodes: { embeddedPort: opts.natsPort ?? 0, ...CHAOS_NODE_TIMING },
          projects: Object.fromEntries(this.nodes.map((n) => [n.project, { node: n.name }])),
        }
      : {};
    this.configFile = writeConfig(this.cwd, {
      agent,
      ...nodes,
      ...(opts.jobs ? JOB_CONFIG : {}),
      steering: { maxLive: 3 },
      // No chat channel: the slow channel is added by gateway-child.ts, with its own access entry.
      web: { port: 0 },
      shutdownDrainSeconds: 1,
    });
  }

  /** The longest start-up so far, ms. */
  private startMs = 0;

  /** Starts (or restarts) the gateway child and waits until it takes messages. */
  async start(): Promise<void> {
    const child = spawn(process.execPath, ['--import', TSX, CHILD, this.configFile], {
      cwd: this.cwd,
      env: { ...process.env, RUDDER_HOME: this.home, CHAOS_SLOW_LOG: this.slowLog },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.starts++;
    let out = '';
    const n = this.output.push('') - 1;
    const keep = (d: Buffer) => {
      out += d;
      this.output[n] = out.slice(-20_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    // A budget from this run's measured start-up (a loaded machine starts slowly everywhere), never under a minute.
    const t0 = Date.now();
    await waitUntil(() => /^ready /m.test(out) || child.exitCode !== null, Math.max(60_000, 10 * this.startMs));
    this.startMs = Math.max(this.startMs, Date.now() - t0);
    const m = /^ready (http:\/\/[^/]+)\/#token=(\S+) (\S+)$/m.exec(out);
    if (!m) throw new Error(`the gateway did not start:\n${out}`);
    this.ep = { base: m[1]!, token: m[2]! };
    this.slowUrl = m[3]!;
  }

  /** Joins and starts the nodes (once, after the front's first start), and waits until the front hears them. */
  async startNodes(): Promise<void> {
    const budget = Math.max(60_000, 10 * this.startMs);
    for (const n of this.nodes) n.join(this.home, this.cwd);
    await Promise.all(this.nodes.map((n) => n.start(budget)));
    await waitUntil(async () => {
      const s = await this.status();
      return this.nodes.every((n) => s?.nodes?.some((x) => x.name === n.name && x.state === 'up'));
    }, budget);
  }

  /** A start-up's worth of waiting, from the longest measured so far. */
  budget(): number {
    return Math.max(60_000, 10 * this.startMs);
  }

  running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async kill9(): Promise<void> {
    const child = this.child;
    if (!child || !this.running()) return;
    child.kill('SIGKILL');
    await new Promise((r) =>
      child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r),
    );
  }

  /** SIGTERM and wait; false when it had to be killed. */
  async stop(timeoutMs = 30_000): Promise<boolean> {
    const child = this.child;
    if (!child || !this.running()) return true;
    child.kill('SIGTERM');
    const exited = await Promise.race([
      new Promise((r) => child.once('exit', () => r(true))),
      new Promise((r) => setTimeout(() => r(false), timeoutMs)),
    ]);
    if (!exited) await this.kill9();
    return !!exited;
  }

  /** Posts to a web conversation; undefined when the gateway did not answer (it was down or killed). */
  async post(key: string, text: string): Promise<Accepted | undefined> {
    if (!this.ep || !this.running()) return undefined;
    try {
      const r = await call<{ messageId: string; disposition: string }>(
        this.ep,
        'POST',
        `/api/conversations/${key}/messages`,
        { text },
      );
      return this.note({ messageId: r.messageId, conversation: `web:${key}`, text, disposition: r.disposition });
    } catch {
      return undefined;
    }
  }

  /** Sends through the slow channel's inbound endpoint, as its platform would. */
  async slowPost(key: string, text: string, id: string): Promise<Accepted | undefined> {
    if (!this.slowUrl || !this.running()) return undefined;
    try {
      const res = await fetch(`${this.slowUrl}/inbound`, { method: 'POST', body: JSON.stringify({ key, id, text }) });
      if (!res.ok) return undefined;
      const r = (await res.json()) as { messageId: string; disposition: string };
      return this.note({
        messageId: r.messageId,
        conversation: `${SLOW_CHANNEL}:${key}`,
        text,
        disposition: r.disposition,
      });
    } catch {
      return undefined;
    }
  }

  private note(a: Accepted): Accepted {
    if (a.disposition !== 'duplicate') this.accepted.push(a);
    return a;
  }

  /** Why the last status call got no answer. */
  statusError = '';

  async status(): Promise<Status | undefined> {
    if (!this.ep || !this.running()) {
      this.statusError = 'the gateway is not running';
      return undefined;
    }
    try {
      const s = await call<Status>(this.ep, 'GET', '/api/status');
      for (const x of s.sessions) if (x.pid) this.track(x.pid);
      for (const n of s.nodes ?? []) for (const x of n.sessions) if (x.pid) this.track(x.pid);
      return s;
    } catch (err) {
      this.statusError = (err as Error).message;
      return undefined;
    }
  }

  /** The pid of the agent process of a conversation, as the gateway (or its node) sees it (the fake CLI, wrap mode). */
  async agentPid(conversationId: string): Promise<number | undefined> {
    const s = await this.status();
    const local = s?.sessions.find((x) => x.conversationId === conversationId)?.pid;
    if (local) return local;
    for (const n of s?.nodes ?? []) {
      const pid = n.sessions.find((x) => x.conversationId === conversationId && x.state !== 'stopped')?.pid;
      if (pid) return pid;
    }
    return undefined;
  }

  /** The real CLI under the wrapper. */
  realCli(wrapperPid: number): number | undefined {
    const kid = childrenOf(wrapperPid)[0];
    if (kid) this.seenPids.add(kid);
    return kid;
  }

  private track(pid: number): void {
    this.seenPids.add(pid);
    for (const k of childrenOf(pid)) this.seenPids.add(k);
  }

  dbFile(): string {
    return path.join(this.home, 'rudder.db');
  }

  gatewayLog(): string {
    try {
      return fs.readFileSync(path.join(this.home, 'rudder.log'), 'utf8');
    } catch {
      return '';
    }
  }

  /** Stops every node (SIGTERM, after a SIGCONT); false when one had to be killed. */
  async stopNodes(): Promise<boolean> {
    return (await Promise.all(this.nodes.map((n) => n.stop()))).every(Boolean);
  }

  /** The run is over: an interrupted runner no longer needs to stop it. */
  done(): void {
    ChaosRig.live.delete(this);
  }

  /**
   * Stops everything the run started, at once (the runner was interrupted): the gateway, its
   * nats-server, the nodes (resumed first, so a paused one does not stay behind) and every agent.
   */
  abort(): void {
    // The pid file may outlive its server: only a nats-server is stopped by it.
    const nats = natsPid(this.home);
    const natsAlive = nats !== undefined && /nats-server/.test(procInfo(nats)?.cmdline ?? '');
    const kill = (pid: number | undefined) => {
      if (!pid) return;
      try {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };
    kill(this.child?.pid);
    for (const n of this.nodes) kill(n.child?.pid);
    if (natsAlive) kill(nats);
    for (const p of processesOfRun(this.agentHome)) kill(p.pid);
    this.done();
  }

  /** Removes the run's temp dirs (kept when a run found a violation). */
  cleanup(): void {
    for (const n of this.nodes) n.cleanup();
    for (const d of [this.home, this.agentHome, this.cwd, this.faultDir])
      fs.rmSync(d, { recursive: true, force: true });
  }
}
