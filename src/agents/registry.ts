/**
 * The conversations' agent sessions: the warm cap, the idle reaper and stopAll.
 * Every running turn has a process of its own; `maxLive` bounds how many IDLE processes are kept
 * warm. When a turn ends and more than `maxLive` processes wait idle, the least recently used of
 * them are stopped (a process exits; its conversation's next turn resumes the session in a new one),
 * so the conversation a person is talking to keeps its process. A session with a turn in flight (a
 * permission waiting included) or handed out for a turn about to start is never stopped for the cap.
 */

import type { Logger } from '../ops/logger.js';
import type { AgentSession, Turn } from './session.js';

/** The default warm cap: one idle process per 2 GB of available memory, at least 2, at most 8. */
export const WARM_CAP = { bytesPerProcess: 2e9, min: 2, max: 8 } as const;

/** steering.maxLive when the config sets it, else the figure from the machine's memory; with why, for status. */
export function warmCap(
  configured: number | undefined,
  memAvailable: number | undefined,
): { maxLive: number; why: string } {
  if (configured !== undefined)
    return { maxLive: Math.max(0, Math.floor(configured)), why: 'steering.maxLive in the config' };
  const range = `${WARM_CAP.min}..${WARM_CAP.max}`;
  if (memAvailable === undefined)
    return { maxLive: WARM_CAP.min, why: `available memory unknown: the minimum of ${range}` };
  const n = Math.min(WARM_CAP.max, Math.max(WARM_CAP.min, Math.floor(memAvailable / WARM_CAP.bytesPerProcess)));
  return { maxLive: n, why: `from ${(memAvailable / 1e9).toFixed(1)} GB available memory: one per 2 GB, ${range}` };
}

/**
 * steering.spareProcess when the config sets it, else on when the memory available at start has room,
 * by the warm cap's rule (one process per 2 GB), for one process more than the warm cap keeps.
 */
export function spareProcess(
  configured: boolean | undefined,
  maxLive: number,
  memAvailable: number | undefined,
): { on: boolean; why: string } {
  if (configured !== undefined) return { on: configured, why: 'steering.spareProcess in the config' };
  if (memAvailable === undefined) return { on: false, why: 'available memory unknown' };
  const need = (maxLive + 1) * WARM_CAP.bytesPerProcess;
  const gb = (n: number) => `${(n / 1e9).toFixed(1)} GB`;
  return memAvailable >= need
    ? { on: true, why: `${gb(memAvailable)} available: room for ${maxLive} warm processes and a spare` }
    : { on: false, why: `${gb(memAvailable)} available: ${gb(need)} needed beside ${maxLive} warm processes` };
}

export interface RegistryOptions {
  /** Idle processes kept warm at most; 0 keeps none. Default 2. */
  maxLive?: number;
  /** Sessions idle longer than this are stopped. Default 20; values below 1 are clamped to 1. */
  idleMinutes?: number;
  /** How often the reaper looks, in ms. Default 30 s. */
  reapIntervalMs?: number;
  logger: Logger;
}

export class SessionRegistry {
  private readonly sessionsByConversation = new Map<string, AgentSession>();
  /** Handed out for a turn that has not begun yet (the lane waits for its commit): not stopped for the cap. */
  private readonly promised = new Set<AgentSession>();
  private maxLive = 2;
  private idleMs = 20 * 60_000;
  private readonly reapIntervalMs: number;
  private reaper: NodeJS.Timeout | undefined;
  private readonly log: Logger;

  constructor(opts: RegistryOptions) {
    this.log = opts.logger;
    this.configure(opts);
    this.reapIntervalMs = opts.reapIntervalMs ?? 30_000;
  }

  /** Applies new limits (config reload). */
  configure(opts: { maxLive?: number; idleMinutes?: number }): void {
    if (opts.maxLive !== undefined) this.maxLive = Math.max(0, Math.floor(opts.maxLive));
    if (opts.idleMinutes !== undefined) this.idleMs = Math.max(1, opts.idleMinutes) * 60_000;
  }

  limit(): number {
    return this.maxLive;
  }

  get(conversationId: string): AgentSession | undefined {
    return this.sessionsByConversation.get(conversationId);
  }

  sessions(): AgentSession[] {
    return [...this.sessionsByConversation.values()];
  }

  /**
   * The live session of another conversation that has this Claude Code session: two processes
   * resuming one session write one transcript and corrupt it.
   */
  holderOf(sessionId: string, except?: string): AgentSession | undefined {
    return this.sessions().find(
      (s) => s.conversationId !== except && s.state() !== 'stopped' && s.sessionId() === sessionId,
    );
  }

  /** Sessions with a process that waits for the next turn. */
  idleWarm(): AgentSession[] {
    return this.sessions().filter((s) => isIdleWarm(s));
  }

  /** Registers a conversation's session; when each of its turns ends, the warm cap is applied. */
  add(session: AgentSession): void {
    this.sessionsByConversation.set(session.conversationId, session);
    session.onTurn((turn: Turn) => {
      this.promised.delete(session);
      // After the turn's owner had its chance to start the next queued turn in the same process.
      const settled = () => void setImmediate(() => this.applyWarmCap());
      turn.result.then(settled, settled);
    });
  }

  /** A registered session is handed out for a turn: until that turn begins, the cap leaves it alone. */
  promise(session: AgentSession): void {
    if (this.sessionsByConversation.get(session.conversationId) === session) this.promised.add(session);
  }

  /** Forgets a session (it stopped itself or was stopped by its owner). */
  remove(session: AgentSession): void {
    this.promised.delete(session);
    if (this.sessionsByConversation.get(session.conversationId) === session)
      this.sessionsByConversation.delete(session.conversationId);
  }

  async stop(conversationId: string, reason: string): Promise<void> {
    const s = this.sessionsByConversation.get(conversationId);
    if (!s) return;
    this.remove(s);
    await s.stop(reason);
  }

  /** While more than maxLive processes wait idle, the least recently used one is stopped. */
  applyWarmCap(): void {
    const idle = this.idleWarm();
    const over = idle.length - this.maxLive;
    if (over <= 0) return;
    const byAge = idle.filter((s) => !this.promised.has(s)).sort((a, b) => a.lastActiveAt() - b.lastActiveAt());
    for (const s of byAge.slice(0, over)) this.stopBeyondCap(s);
  }

  private stopBeyondCap(session: AgentSession): void {
    this.remove(session);
    this.log.info(
      {
        conversationId: session.conversationId,
        pid: session.pid(),
        maxLive: this.maxLive,
        idleSeconds: Math.round((Date.now() - session.lastActiveAt()) / 1000),
      },
      'turn over beyond the warm cap: its process exits; the next turn resumes the session',
    );
    void session
      .stop(`beyond the warm cap (steering.maxLive ${this.maxLive})`)
      .catch((err: Error) =>
        this.log.warn(
          { conversationId: session.conversationId, err: err.message },
          'stopping a session beyond the warm cap failed',
        ),
      );
  }

  startReaper(): void {
    if (this.reaper) return;
    this.reaper = setInterval(() => void this.reapOnce(), this.reapIntervalMs);
    this.reaper.unref();
  }

  /** One pass of the reaper; never stops a session with a turn in flight. Exceptions are logged, the loop goes on. */
  async reapOnce(now = Date.now()): Promise<string[]> {
    const stopped: string[] = [];
    for (const s of this.sessions()) {
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
        this.log.info(
          { conversationId: s.conversationId, pid: s.pid(), idleSeconds: Math.round(idle / 1000) },
          'reaper: stopping idle session',
        );
        await s.stop(`idle for ${Math.round(idle / 60_000)} min`);
        stopped.push(s.conversationId);
      } catch (err) {
        this.log.error({ err, conversationId: s.conversationId }, 'reaper: error while checking a session; continuing');
      }
    }
    return stopped;
  }

  /** Stops every session; runs on SIGTERM, SIGINT and normal exit. */
  async stopAll(reason: string): Promise<void> {
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = undefined;
    const all = this.sessions();
    this.sessionsByConversation.clear();
    this.promised.clear();
    // A session whose turns run elsewhere is let go of, not stopped: its turn is followed again after the restart.
    await Promise.allSettled(all.map(async (s) => (s.capabilities.reattach ? s.detach(reason) : s.stop(reason))));
  }
}

function isIdleWarm(s: AgentSession): boolean {
  try {
    return s.state() === 'idle' && !s.currentTurn() && s.pid() !== undefined;
  } catch {
    return false; // a session that cannot say counts as not warm; the reaper logs it
  }
}
