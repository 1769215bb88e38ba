/**
 * Which nodes are up, from their heartbeats in the presence bucket (per-key TTL does not work on
 * nats-server 2.9.10, so silence is measured here): a node is lost once nothing came from it for
 * nodes.lostAfterSeconds, and back with its next heartbeat or event. Listeners hear each change. A
 * heartbeat seen live counts from when it arrived (the front's clock); one already in the bucket
 * at start counts from when the server stored it.
 */
import type { KV } from '@nats-io/kv';
import type { Logger } from '../../ops/logger.js';
import { type Presence, parsePresence } from '../wire.js';
import type { Reach } from './remote-launch.js';

/** A stored heartbeat this close to now arrived live. */
const LIVE_MS = 5_000;

interface Seen {
  presence: Presence;
  /** When the front last heard from it, epoch ms. */
  seenAt: number;
  lost: boolean;
  /** Its last heartbeat came from a new run of the node (startedAt changed). */
  restarted: boolean;
}

export class PresenceWatch {
  private readonly nodes = new Map<string, Seen>();
  private readonly listeners = new Map<string, Set<(r: Reach) => void>>();
  private readonly upListeners = new Set<(node: string) => void>();
  private timer: NodeJS.Timeout | undefined;
  private stopWatch: (() => void) | undefined;

  constructor(
    private readonly kv: KV,
    private readonly lostAfterMs: number,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const watch = await this.kv.watch();
    this.stopWatch = () => watch.stop();
    void (async () => {
      for await (const e of watch) {
        if (e.operation !== 'PUT') {
          this.left(e.key);
          continue;
        }
        const p = parsePresence(e.value);
        if (p && p.node === e.key) this.heard(p, e.created.getTime());
      }
    })().catch((err: Error) => this.log.warn({ err: err.message }, 'presence watch ended'));
    const every = Math.max(100, Math.min(1000, this.lostAfterMs / 4));
    this.timer = setInterval(() => this.check(), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.stopWatch?.();
  }

  reach(node: string): Reach {
    const s = this.nodes.get(node);
    return { reachable: !!s && !s.lost, lastSeenAt: s?.presence.at, ...(s?.restarted ? { restarted: true } : {}) };
  }

  presence(node: string): Presence | undefined {
    return this.nodes.get(node)?.presence;
  }

  /** When the front last heard from a node (its clock), for /nodes. */
  seenAt(node: string): number | undefined {
    return this.nodes.get(node)?.seenAt;
  }

  known(): string[] {
    return [...this.nodes.keys()];
  }

  onReach(node: string, fn: (r: Reach) => void): () => void {
    const set = this.listeners.get(node) ?? new Set();
    this.listeners.set(node, set);
    set.add(fn);
    return () => void set.delete(fn);
  }

  /** Called when any node is up (first heard of, or back). */
  onUp(fn: (node: string) => void): void {
    this.upListeners.add(fn);
  }

  private heard(p: Presence, storedAt: number): void {
    const now = Date.now();
    const seenAt = now - storedAt < LIVE_MS ? now : storedAt;
    const before = this.nodes.get(p.node);
    const lost = now - seenAt > this.lostAfterMs;
    const restarted = !!before && before.presence.startedAt !== p.startedAt;
    this.nodes.set(p.node, { presence: p, seenAt, lost, restarted });
    if (!lost && (before === undefined || before.lost)) this.up(p.node, !!before, 'heartbeat');
  }

  /** The node is up: first heard of, or back after it was lost. */
  private up(node: string, wasKnown: boolean, by: 'heartbeat' | 'event'): void {
    this.log.info({ node, wasLost: wasKnown, by }, wasKnown ? 'node is back' : 'node is up');
    for (const fn of this.upListeners) fn(node);
    this.tell(node);
  }

  /**
   * An event came from the node: it is up, whatever its heartbeat has not said yet (the turn a restart cut off
   * is reported before the first heartbeat lands). Everyone hears it is back at once, before that event is used.
   */
  heardFrom(node: string): void {
    const s = this.nodes.get(node);
    if (!s) return;
    s.seenAt = Math.max(s.seenAt, Date.now());
    if (!s.lost) return;
    s.lost = false;
    this.up(node, true, 'event');
  }

  /** The node deleted its key: it stopped on purpose, so it is lost now rather than after the silence. */
  private left(node: string): void {
    const s = this.nodes.get(node);
    if (!s || s.lost) return;
    s.lost = true;
    this.log.info({ node }, 'node stopped');
    this.tell(node);
  }

  private check(now = Date.now()): void {
    for (const [node, s] of this.nodes) {
      if (s.lost || now - s.seenAt <= this.lostAfterMs) continue;
      s.lost = true;
      this.log.warn({ node, silentMs: now - s.seenAt, lastSeenAt: s.presence.at }, 'node lost: no heartbeat');
      this.tell(node);
    }
  }

  private tell(node: string): void {
    const r = this.reach(node);
    for (const fn of this.listeners.get(node) ?? []) {
      try {
        fn(r);
      } catch (err) {
        this.log.error({ err, node }, 'a presence listener failed');
      }
    }
  }
}
