/**
 * What the front knows of each node, for /nodes, `rudder status`, GET /api/status and `rudder
 * doctor`: its state (up, lost, or never heard from), when it was last seen, the projects it
 * runs and the ones the front pins to it, and its live sessions. Plain data.
 */
import type { PresenceSession } from '../wire.js';

export interface NodeStatus {
  name: string;
  /** up: heard from within nodes.lostAfterSeconds; lost: silent longer; unknown: never heard from since start. */
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
  const names = new Set([...s.added, ...s.pinned.map((p) => p.node!).filter(Boolean), ...s.presence.known()]);
  return [...names].sort().map((name) => {
    const p = s.presence.presence(name);
    const r = s.presence.reach(name);
    const seenAt = s.presence.seenAt(name);
    return {
      name,
      state: !p ? 'unknown' : r.reachable ? 'up' : 'lost',
      added: s.added.includes(name),
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
    const state = n.state === 'up' ? '🟢 up' : n.state === 'lost' ? `🔴 unreachable (${seen})` : `⚪ ${seen}`;
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
