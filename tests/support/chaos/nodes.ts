/**
 * The nodes of a chaos run with `--nodes N`: `rudder node` processes (from src, through tsx), each
 * with its own data dir, config and project directory, joined to the run's front with the token
 * `rudder node add` printed (in RUDDER_NODE_TOKEN, never argv). Their agents are the fake CLI in
 * wrap mode around the real one, with the run's agent HOME, so the run's leak check sees them.
 * The front's nats-server is the embedded one; killing it is a fault the front must survive.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, waitUntil } from '../claude-rig.js';
import { writeConfig } from '../gateway-rig.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');
const MAIN = path.join(HERE, '../../../src/cli/main.ts');

/** Fast presence for a run: a paused node is lost after 3 s. */
export const CHAOS_NODE_TIMING = { heartbeatSeconds: 0.5, lostAfterSeconds: 3 };

export class ChaosNode {
  readonly home = tempDir('chaos-node-home');
  readonly cwd = tempDir('chaos-node-cwd');
  readonly project: string;
  /** The node's project directory. */
  private readonly projectDir: string;
  child: ChildProcess | undefined;
  out = '';
  paused = false;
  private token = '';

  constructor(
    readonly name: string,
    agent: Record<string, unknown>,
  ) {
    this.project = `p-${name}`;
    this.projectDir = tempDir(`chaos-proj-${name}`);
    writeConfig(this.cwd, {
      agent,
      projects: { [this.project]: { path: this.projectDir } },
      steering: { maxLive: 3, spareProcess: false },
      nodes: CHAOS_NODE_TIMING,
      shutdownDrainSeconds: 1,
    });
  }

  /** `rudder node add` on the front, as its operator would. */
  join(frontHome: string, frontCwd: string): void {
    const r = spawnSync(process.execPath, ['--import', TSX, MAIN, 'node', 'add', this.name], {
      cwd: frontCwd,
      env: { ...process.env, RUDDER_HOME: frontHome },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`rudder node add ${this.name}: ${r.stderr}`);
    this.token = r.stdout.trim();
  }

  async start(budgetMs: number): Promise<void> {
    const child = spawn(process.execPath, ['--import', TSX, MAIN, 'node'], {
      cwd: this.cwd,
      env: { ...process.env, RUDDER_HOME: this.home, RUDDER_NODE_TOKEN: this.token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.paused = false;
    this.out = '';
    const keep = (d: Buffer) => (this.out = (this.out + d).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    await waitUntil(() => /is running/.test(this.out) || child.exitCode !== null, budgetMs);
    if (!/is running/.test(this.out)) throw new Error(`node ${this.name} did not start:\n${this.out}`);
  }

  running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  pid(): number | undefined {
    return this.running() ? this.child!.pid : undefined;
  }

  async kill9(): Promise<void> {
    const c = this.child;
    if (!c || !this.running()) return;
    c.kill('SIGKILL');
    await new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(undefined) : c.once('exit', r)));
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    this.child?.kill('SIGCONT');
    this.paused = false;
  }

  /** SIGTERM and wait; false when it had to be killed. */
  async stop(timeoutMs = 30_000): Promise<boolean> {
    const c = this.child;
    if (!c || !this.running()) return true;
    this.resume();
    c.kill('SIGTERM');
    const exited = await Promise.race([
      new Promise((r) => c.once('exit', () => r(true))),
      new Promise((r) => setTimeout(() => r(false), timeoutMs)),
    ]);
    if (!exited) await this.kill9();
    return !!exited;
  }

  log(): string {
    try {
      return fs.readFileSync(path.join(this.home, 'rudder.log'), 'utf8');
    } catch {
      return '';
    }
  }

  cleanup(): void {
    for (const d of [this.home, this.cwd, this.projectDir]) fs.rmSync(d, { recursive: true, force: true });
  }
}

/** The front's embedded nats-server, by the pid file it writes. */
export function natsPid(frontHome: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(frontHome, 'nats', 'nats.pid'), 'utf8').trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
