/**
 * The floor for Codex: a hand-written app-server client, the least a program can do to drive codex.
 * It spawns the same codex binary with the same `-c` overrides, environment and thread settings as
 * Rudder's codex backend (the caller hands it those), speaks JSON-RPC over stdio (one JSON object a
 * line, no "jsonrpc" field; shared/codex-notes.md) and does nothing else: no store, no lanes, no
 * wrapping, no HTTP. It imports nothing of Rudder's code. Its pipes are tapped the same way as
 * Rudder's (wire-tap.ts), so the figures split the same way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import readline from 'node:readline';
import { now, WireTaps } from '../floor/wire-tap.js';

export interface FloorOptions {
  bin: string;
  /** agent.codex.config, as Rudder passes it: one `-c key=value` each, the value a TOML literal. */
  config: Record<string, string | number | boolean>;
  env: Record<string, string>;
  /** Rudder's developer instructions (its external-content rules), so both send the model the same. */
  instructions: string;
}

type Listener = (method: string, params: any) => void;

/** A TOML literal for the simple values the mock's config holds (JSON strings are TOML basic strings here). */
const toml = (v: string | number | boolean) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

export class FloorClient {
  readonly taps = new WireTaps();
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, { resolve: (r: any) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Set<Listener>();
  private nextId = 1;
  readonly ready: Promise<void>;

  constructor(private readonly o: FloorOptions) {
    const args = ['app-server', ...Object.entries(o.config).flatMap(([k, v]) => ['-c', `${k}=${toml(v)}`])];
    const at = now();
    this.child = spawn(o.bin, args, { env: o.env, cwd: o.env.HOME, stdio: ['pipe', 'pipe', 'ignore'] });
    this.taps.attach('floor', this.child, at);
    readline.createInterface({ input: this.child.stdout! }).on('line', (line) => this.onLine(line));
    this.ready = this.request('initialize', { clientInfo: { name: 'floor', version: '0' }, capabilities: null }).then(
      () => this.notify('initialized'),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  request(method: string, params: unknown): Promise<any> {
    const id = this.nextId++;
    this.write({ id, method, params });
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** A new thread in cwd, with what Rudder's bypassPermissions mode asks for. */
  async startThread(cwd: string): Promise<string> {
    const r = await this.request('thread/start', {
      cwd,
      approvalPolicy: 'never',
      sandbox: 'danger-full-access',
      developerInstructions: this.o.instructions,
    });
    return r.thread.id;
  }

  /**
   * Starts a turn: `firstText` resolves (epoch ms) at its first streamed text, `started` with codex's
   * turn id, `done` when it completes.
   */
  turn(threadId: string, text: string): { firstText: Promise<number>; started: Promise<string>; done: Promise<void> } {
    let first!: (at: number) => void;
    let end!: () => void;
    const firstText = new Promise<number>((r) => (first = r));
    const done = new Promise<void>((r) => (end = r));
    const off = this.on((method, p) => {
      if (p?.threadId !== threadId) return;
      if (method === 'item/agentMessage/delta') first(now());
      if (method === 'turn/completed') off(), end();
    });
    const input = [{ type: 'text', text, text_elements: [] }];
    const started = this.request('turn/start', { threadId, input }).then((r) => r.turn.id as string);
    return { firstText, started, done };
  }

  /** Adds input to the running turn (turn/steer with expectedTurnId); resolves (epoch ms) when it was written. */
  steer(threadId: string, turnId: string, text: string): number {
    const at = now();
    void this.request('turn/steer', {
      threadId,
      input: [{ type: 'text', text, text_elements: [] }],
      expectedTurnId: turnId,
    });
    return at;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin!.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(t);
  }

  private write(msg: object): void {
    this.child.stdin!.write(`${JSON.stringify(msg)}\n`);
  }

  private onLine(line: string): void {
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.id !== undefined && msg.method === undefined) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(msg.error.message));
      else p?.resolve(msg.result);
      return;
    }
    // A request from the server (approvals) never comes in bypass mode; notifications go to the listeners.
    if (msg.method) for (const l of this.listeners) l(msg.method, msg.params);
  }
}
