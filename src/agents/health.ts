/**
 * The agents' health: whether the binary of each agent the conversations run on (agent.backend's and
 * every local project's backend's, by the agent table) is there and runs, `<binary> --version`
 * (common/check-binary.ts). Checked at start (a warning that names the fix, never a failed start:
 * the page runs and says so) and again at most every 30 s as the status report reads it, so a binary
 * installed or repaired later shows without a restart. An agent no conversation runs on is not
 * checked. `rudder doctor` goes further (each entry's doctor checks).
 */
import type { AgentConfig } from '../config/schema.js';
import type { BinaryCheck } from './common/binary-check.js';
import type { BinarySpec } from './common/binary-lookup.js';
import { checkBinary } from './common/check-binary.js';
import { AGENT_TABLE, type AgentEntry, type BinaryName, binaries } from './table.js';

/** Each agent's last check; null when no conversation runs on it, or before its first check ends. */
export type AgentChecks = Record<BinaryName, BinaryCheck | null>;

export interface AgentHealthDeps {
  /** The backends the conversations run on here, read at each refresh. */
  inUse(): Iterable<string>;
  /** agent.* of the config now: the binary settings and the environment. */
  agent(): AgentConfig;
  /** The environment Rudder runs in. */
  env: NodeJS.ProcessEnv;
}

/** One binary's last check, checked again in the background when it is read older than maxAgeMs. */
class FreshCheck {
  private last: BinaryCheck | undefined;
  private lastAt = 0;
  private running: Promise<BinaryCheck> | undefined;

  constructor(
    /** The check itself; it reports what it finds and never throws (a throw is reported with the fix). */
    private readonly check: () => Promise<BinaryCheck>,
    private readonly spec: BinarySpec,
    private readonly maxAgeMs = 30_000,
  ) {}

  refresh(): Promise<BinaryCheck> {
    return (this.running ??= this.check()
      .catch(
        (err: Error): BinaryCheck => ({
          agent: this.spec.agent,
          ok: false,
          path: null,
          source: null,
          version: null,
          problem: err.message,
          fix: this.spec.fix.broken,
          checkedAt: new Date().toISOString(),
        }),
      )
      .then((r) => {
        this.last = r;
        this.lastAt = Date.now();
        this.running = undefined;
        return r;
      }));
  }

  /** The last result (undefined before the first check ends). */
  current(): BinaryCheck | undefined {
    if (!this.running && Date.now() - this.lastAt > this.maxAgeMs) void this.refresh();
    return this.last;
  }
}

export class AgentHealth {
  private readonly checks = new Map<string, FreshCheck>();

  constructor(private readonly d: AgentHealthDeps) {
    const entries: AgentEntry[] = Object.values(AGENT_TABLE);
    for (const { binary, env } of entries) {
      if (this.checks.has(binary.name)) continue;
      const check = () => {
        const agent = d.agent();
        return checkBinary(binary, { configured: binary.configured(agent), env: d.env, agentEnv: env(agent, d.env) });
      };
      this.checks.set(binary.name, new FreshCheck(check, binary));
    }
  }

  /** Checks every agent in use now; resolves with their results. */
  refresh(): Promise<BinaryCheck[]> {
    return Promise.all(binaries(this.d.inUse()).map((b) => this.checks.get(b.name)!.refresh()));
  }

  current(): AgentChecks {
    const inUse = new Set(binaries(this.d.inUse()).map((b) => b.name));
    const of = (name: string) => (inUse.has(name) ? (this.checks.get(name)!.current() ?? null) : null);
    return Object.fromEntries([...this.checks.keys()].map((name) => [name, of(name)])) as AgentChecks;
  }
}
