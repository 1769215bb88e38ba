/**
 * What the front knows of each node, for /nodes, `rudder status`, GET /api/status and `rudder
 * doctor`: its state (up, lost, or never heard from), when it was last seen, the projects it
 * runs and the ones the front pins to it, and its live sessions. Plain data.
 */
import type { PresenceSession } from '../wire.js';

export interface NodeStatus {
  name: string;
  /** up: heard from within nodes.lostAfterSeconds; lost: silent longer; unknown: never heard from, or not added. */
  state: 'up' | 'lost' | 'unknown';
  /** Added with `rudder node add` (it has credentials). */
  added: boolean;
  /** Its last heartbeat, by its own clock, ISO; null when never heard from. */
  lastSeen: string | null;
  /** Seconds since the front last heard from it. */
  silentSeconds: number | null;
  version: string | null;
  /** The projects it says it runs. */
  projects: string[];
  /** The projects the front's config pins to it. */
  pinned: string[];
  sessions: PresenceSession[];
  rssBytes: number | null;
}

export interface StatusSources {
  added: string[];
  pinned: Array<{ name: string; node?: string }>;
  presence: {
    known(): string[];
    reach(node: string): { reachable: boolean; lastSeenAt: number | undefined };
    presence(
      node: string,
    ):
      | { version: string; projects: Array<{ name: string }>; sessions: PresenceSession[]; rssBytes: number | null }
      | undefined;
    seenAt(node: string): number | undefined;
  };
  now: number;
}

export function nodeStatuses(s: StatusSources): NodeStatus[] {
  // A node heard from but no longer added was removed: what it said last is no more its state.
  const heard = s.presence.known().filter((n) => s.added.includes(n));
  const names = new Set([...s.added, ...s.pinned.map((p) => p.node!).filter(Boolean), ...heard]);
  return [...names].sort().map((name) => {
    const added = s.added.includes(name);
    const p = added ? s.presence.presence(name) : undefined;
    const r = added ? s.presence.reach(name) : { reachable: false, lastSeenAt: undefined };
    const seenAt = added ? s.presence.seenAt(name) : undefined;
    return {
      name,
      state: !p ? 'unknown' : r.reachable ? 'up' : 'lost',
      added,
      lastSeen: r.lastSeenAt ? new Date(r.lastSeenAt).toISOString() : null,
      silentSeconds: seenAt === undefined ? null : Math.max(0, Math.round((s.now - seenAt) / 1000)),
      version: p?.version ?? null,
      projects: p?.projects.map((x) => x.name) ?? [],
      pinned: s.pinned.filter((x) => x.node === name).map((x) => x.name),
      sessions: p?.sessions ?? [],
      rssBytes: p?.rssBytes ?? null,
    };
  });
}

/** /nodes as text. */
export function nodesText(nodes: NodeStatus[]): string {
  if (!nodes.length) return 'No nodes: add one with `rudder node add <name>` on this machine.';
  const lines = ['Nodes:'];
  for (const n of nodes) {
    const seen = n.lastSeen ? `last seen ${n.lastSeen.slice(11, 19)} UTC` : 'never seen';
    const unknown = n.added ? `⚪ ${seen}` : `⚪ not added (rudder node add ${n.name})`;
    const state = n.state === 'up' ? '🟢 up' : n.state === 'lost' ? `🔴 unreachable (${seen})` : unknown;
    lines.push(`• ${n.name}: ${state}${n.version ? `, Rudder ${n.version}` : ''}`);
    const missing = n.pinned.filter((p) => n.state !== 'unknown' && !n.projects.includes(p));
    const gap = missing.length ? ` — pinned here but not on the node: ${missing.join(', ')}` : '';
    lines.push(`  projects: ${n.projects.join(', ') || '(none)'}${gap}`);
    const live = n.sessions
      .filter((x) => x.state !== 'stopped')
      .map((x) => `${x.conversationId} (${x.project}, ${x.state}${x.pid ? `, pid ${x.pid}` : ''})`);
    lines.push(live.length ? `  sessions: ${live.join('; ')}` : '  sessions: none');
  }
  return lines.join('\n');
}
