/**
 * `terminal/*`, served only when agent.acp says so (off by default, and then declared unsupported
 * in initialize): a command the agent runs through Rudder, in the conversation's directory (or a
 * directory inside it), with the agent's own environment plus the variables it names. Each runs in
 * a process group of its own, output kept up to the byte limit the agent asked for (the oldest
 * dropped first), and is killed with its group on kill, on release, and when the session ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { withUserUmask } from '../../ops/data-dir.js';
import type { FsGuard } from './client-fs.js';
import { ACP_ERRORS, acpRequestError, methodNotFound } from './protocol.js';

/** What is kept of a terminal's output when the agent names no limit. */
const DEFAULT_OUTPUT_BYTES = 1024 * 1024;

interface Exit {
  exitCode: number | null;
  signal: string | null;
}

interface Term {
  child: ChildProcess;
  output: Buffer;
  limit: number;
  truncated: boolean;
  exit: Exit | undefined;
  exited: Promise<Exit>;
}

interface CreateParams {
  command: string;
  args?: string[];
  env?: Array<{ name: string; value: string }>;
  cwd?: string | null;
  outputByteLimit?: number | null;
}

function killGroup(t: Term): void {
  if (t.exit || !t.child.pid) return;
  try {
    process.kill(-t.child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export class Terminals {
  private readonly terms = new Map<string, Term>();

  constructor(
    private readonly guard: FsGuard,
    private readonly cwd: string,
    private readonly env: Record<string, string>,
  ) {}

  handle(method: string, params: Record<string, unknown>): Promise<unknown> | unknown {
    if (method === 'terminal/create') return this.create(params as unknown as CreateParams);
    const id = String(params.terminalId);
    const t = this.terms.get(id);
    if (!t) throw acpRequestError(ACP_ERRORS.resourceNotFound, `No terminal ${id}.`);
    switch (method) {
      case 'terminal/output':
        return { output: t.output.toString('utf8'), truncated: t.truncated, exitStatus: t.exit ?? null };
      case 'terminal/wait_for_exit':
        return t.exited;
      case 'terminal/kill':
        killGroup(t);
        return {};
      case 'terminal/release':
        killGroup(t);
        this.terms.delete(id);
        return {};
      default:
        throw methodNotFound(method);
    }
  }

  /** Every terminal killed (the session ends). */
  releaseAll(): void {
    for (const t of this.terms.values()) killGroup(t);
    this.terms.clear();
  }

  private create(p: CreateParams): { terminalId: string } {
    if (typeof p.command !== 'string' || !p.command) throw acpRequestError(ACP_ERRORS.invalidParams, 'No command.');
    const cwd = p.cwd ? this.guard.inside(p.cwd) : this.cwd;
    const env = { ...this.env, ...Object.fromEntries((p.env ?? []).map((v) => [v.name, v.value])) };
    const child = withUserUmask(() =>
      spawn(p.command, p.args ?? [], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    const term: Term = {
      child,
      output: Buffer.alloc(0),
      limit: p.outputByteLimit ?? DEFAULT_OUTPUT_BYTES,
      truncated: false,
      exit: undefined,
      exited: new Promise((resolve) => {
        const done = (exit: Exit) => {
          term.exit ??= exit;
          resolve(term.exit);
        };
        child.on('error', (err) => {
          term.output = Buffer.concat([term.output, Buffer.from(`${err.message}\n`)]);
          done({ exitCode: null, signal: null });
        });
        child.on('close', (code, signal) => done({ exitCode: code, signal }));
      }),
    };
    const keep = (chunk: Buffer) => {
      const all = Buffer.concat([term.output, chunk]);
      term.truncated ||= all.length > term.limit;
      let start = Math.max(0, all.length - term.limit);
      // Cut at a character: never inside a UTF-8 sequence (its continuation bytes are 10xxxxxx).
      while (start < all.length && start > 0 && (all[start]! & 0xc0) === 0x80) start++;
      term.output = all.subarray(start);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const terminalId = randomUUID();
    this.terms.set(terminalId, term);
    return { terminalId };
  }
}
