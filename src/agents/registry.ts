/**
 * Live agent sessions: the cap on live processes, the idle reaper and stopAll.
 * No LRU eviction: a conversation beyond the cap runs one-shot (the lane asks canStartLive()).
 */
import type { AgentSession } from './session.js';
import type { Logger } from '../ops/logger.js';

export interface RegistryOptions {
  /** Live processes at most; 0 or below turns steering off. Default 2. */
  maxLive?: number;
  /** Sessions idle longer than this are stopped. Default 20; values below 1 are clamped to 1. */
  idleMinutes?: number;
  /** How often the reaper looks, in ms. Default 30 s. */
  reapIntervalMs?: number;
  logger: Logger;
}

export class SessionRegistry {
  private readonly live = new Map<string, AgentSession>();
  private maxLive: number;
  private configured = false;
  private idleMs: number;
  private readonly reapIntervalMs: number;
  private reaper: NodeJS.Timeout | undefined;
  private readonly log: Logger;

  constructor(opts: RegistryOptions) {
    this.log = opts.logger;
    this.maxLive = 2;
    this.idleMs = 20 * 60_000;
    this.configure(opts);
    this.reapIntervalMs = opts.reapIntervalMs ?? 30_000;
  }

  /** Applies new limits (config reload); logs when steering is turned off by the cap. */
  configure(opts: { maxLive?: number; idleMinutes?: number }): void {
    if (opts.maxLive !== undefined) {
      const next = Math.floor(opts.maxLive);
      if (next <= 0 && (this.maxLive > 0 || !this.configured)) this.log.warn({ maxLive: next }, 'steering off: steering.maxLive is 0 or below, every turn runs one-shot');
      this.maxLive = next;
      this.configured = true;
    }
    if (opts.idleMinutes !== undefined) this.idleMs = Math.max(1, opts.idleMinutes) * 60_000;
  }

  limit(): number {
    return this.maxLive;
  }

  /** Whether a new live (persistent) session may start now. */
  canStartLive(): boolean {
    return this.maxLive > 0 && this.live.size < this.maxLive;
  }

  get(conversationId: string): AgentSession | undefined {
    return this.live.get(conversationId);
  }

  sessions(): AgentSession[] {
    return [...this.live.values()];
  }

  add(session: AgentSession): void {
    this.live.set(session.conversationId, session);
  }

  /** Forgets a session (it stopped itself or was stopped by its owner). */
  remove(session: AgentSession): void {
    if (this.live.get(session.conversationId) === session) this.live.delete(session.conversationId);
  }

  async stop(conversationId: string, reason: string): Promise<void> {
    const s = this.live.get(conversationId);
    if (!s) return;
    this.live.delete(conversationId);
    await s.stop(reason);
  }

  startReaper(): void {
    if (this.reaper) return;
    this.reaper = setInterval(() => void this.reapOnce(), this.reapIntervalMs);
    this.reaper.unref();
  }

  /** One pass of the reaper; never stops a session with a turn in flight. Exceptions are logged, the loop goes on. */
  async reapOnce(now = Date.now()): Promise<string[]> {
    const stopped: string[] = [];
    for (const s of [...this.live.values()]) {
      try {
        const st = s.state();
        if (st === 'dead' || st === 'stopped') {
          this.remove(s);
          continue;
        }
        if (st === 'busy' || s.currentTurn()) continue;
        const idle = now - s.lastActiveAt();
        if (idle < this.idleMs) continue;
        this.remove(s);
        this.log.info({ conversationId: s.conversationId, pid: s.pid(), idleSeconds: Math.round(idle / 1000) }, 'reaper: stopping idle session');
        await s.stop(`idle for ${Math.round(idle / 60_000)} min`);
        stopped.push(s.conversationId);
      } catch (err) {
        this.log.error({ err, conversationId: s.conversationId }, 'reaper: error while checking a session; continuing');
      }
    }
    return stopped;
  }

  /** Stops every live session; runs on SIGTERM, SIGINT and normal exit. */
  async stopAll(reason: string): Promise<void> {
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = undefined;
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.allSettled(all.map((s) => s.stop(reason)));
  }
}
