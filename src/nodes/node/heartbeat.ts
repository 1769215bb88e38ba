/**
 * A node's presence: every nodes.heartbeatSeconds it rewrites its key in the presence bucket with
 * its time, its projects (and what their backends can do) and its live sessions. The front judges
 * silence itself (per-key TTL does not work on nats-server 2.9.10). A clean stop deletes the key,
 * so the front knows at once; a crash or a pause is found by the silence.
 */
import type { KV } from '@nats-io/kv';
import type { SessionRegistry } from '../../agents/registry.js';
import type { Capabilities } from '../../agents/session.js';
import type { Logger } from '../../ops/logger.js';
import { rssOf } from '../../ops/proc.js';
import { VERSION } from '../../ops/version.js';
import type { Projects } from '../../projects/service.js';
import { encode, type Presence, WIRE_VERSION } from '../wire.js';

export interface HeartbeatDeps {
  node: string;
  kv: KV;
  everyMs: number;
  projects: Projects;
  registry: SessionRegistry;
  /** What each backend can do, by its config name. */
  capabilities(backend: string): Capabilities;
  backendOf(project: string): string;
  log: Logger;
}

export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = Date.now();
  private failing = false;

  constructor(private readonly d: HeartbeatDeps) {}

  start(): void {
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.d.everyMs);
  }

  presence(): Presence {
    const { node, projects, registry } = this.d;
    return {
      v: WIRE_VERSION,
      node,
      at: Date.now(),
      startedAt: this.startedAt,
      version: VERSION,
      projects: projects
        .set()
        .projects.filter((p) => !p.node)
        .map((p) => {
          const backend = this.d.backendOf(p.name);
          return { name: p.name, backend, capabilities: this.d.capabilities(backend) };
        }),
      sessions: registry.sessions().map((s) => ({
        conversationId: s.conversationId,
        state: s.state(),
        pid: s.pid() ?? null,
        sessionId: s.sessionId() ?? null,
        project: projects.peek(s.conversationId).name,
      })),
      rssBytes: rssOf(process.pid) ?? null,
    };
  }

  private async beat(): Promise<void> {
    try {
      await this.d.kv.put(this.d.node, encode(this.presence()));
      if (this.failing) this.d.log.info('heartbeat written again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.d.log.warn({ err: (err as Error).message }, 'heartbeat could not be written');
      this.failing = true;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.d.kv.delete(this.d.node).catch(() => undefined);
  }
}
