/**
 * Where a schedule's run goes, decided from the schedule alone:
 *   - continue: every run in one conversation that keeps its session: `deliver`, else the schedule's own page
 *     conversation (`web:s-<name>`);
 *   - fresh: each run in a page conversation of its own (`web:s-<name>-<slot>`, titled by the schedule and the date,
 *     listed under the schedule on the page), its replies and notices also delivered to `deliver` when there is one.
 * What the schedule says outside a run (a slot missed or skipped) goes to its home: `deliver`, else `web:s-<name>`.
 */

import { WEB } from '../channels/web/name.js';
import { formatLocal } from '../config/schedule-line/zone.js';

export interface RunPlace {
  conversationId: string;
  /** A conversation the run makes: its title. */
  title?: string;
  /** Where the run's replies and notices are copied to, with a heading naming the run. */
  copyTo?: string;
  copyHeading?: string;
}

type Target = { name: string; deliver?: string; session: 'fresh' | 'continue'; timezone: string };

/** A slot as its title shows it: "Mon 2025-03-03 07:00" in the schedule's zone. */
export function slotLabel(slot: number, timezone: string): string {
  return formatLocal(slot, timezone).replace(/ GMT.*$/, '');
}

/** The schedule's home: `deliver`, else its own page conversation. */
export function homeOf(s: Target): RunPlace {
  const conversationId = s.deliver ?? `${WEB}:s-${s.name}`;
  return { conversationId, ...(s.deliver ? {} : { title: `Schedule ${s.name}` }) };
}

/** The conversation a slot runs in, and where its words are copied to. */
export function runPlace(s: Target, slot: number): RunPlace {
  if (s.session === 'continue') return homeOf(s);
  const key = `s-${s.name}-${slot.toString(36)}`;
  const label = slotLabel(slot, s.timezone);
  return {
    conversationId: `${WEB}:${key}`,
    title: `${s.name} · ${label}`,
    ...(s.deliver ? { copyTo: s.deliver, copyHeading: `Schedule ${s.name} (${label}):` } : {}),
  };
}
