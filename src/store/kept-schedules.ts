/**
 * Schedules made from a chat or the page (`/schedule add`, the Schedules view), kept here and not in the config file:
 * the config file is the person's own (often in the agent's working directory) and Rudder never writes it. A kept
 * schedule has the config's shape and is checked by the same schema; a name the config has is the config's. Pauses
 * (`/schedule pause`) are kept beside them, for the config's schedules and the kept ones alike.
 */
import type { Db } from './db.js';

export interface KeptScheduleRow {
  name: string;
  /** The schedule as the config would hold it (schedules.<name>), unparsed. */
  definition: unknown;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

interface SqlRow {
  name: string;
  definition: string;
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

const toRow = (r: SqlRow): KeptScheduleRow => ({
  name: r.name,
  definition: JSON.parse(r.definition) as unknown,
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class KeptSchedules {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      all: db.prepare<[], SqlRow>('SELECT * FROM kept_schedules ORDER BY name'),
      put: db.prepare(
        `INSERT INTO kept_schedules (name, definition, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`,
      ),
      remove: db.prepare('DELETE FROM kept_schedules WHERE name = ?'),
      paused: db.prepare<[], { name: string }>('SELECT name FROM schedule_pauses'),
      pause: db.prepare('INSERT OR IGNORE INTO schedule_pauses (name, paused_by, paused_at) VALUES (?, ?, ?)'),
      resume: db.prepare('DELETE FROM schedule_pauses WHERE name = ?'),
    };
  }

  all(): KeptScheduleRow[] {
    return this.s.all.all().map(toRow);
  }

  /** Adds a schedule, or replaces the definition of the one of that name. */
  put(name: string, definition: unknown, by: string): void {
    const now = Date.now();
    this.s.put.run(name, JSON.stringify(definition), by, now, now);
  }

  /** True when there was one. */
  remove(name: string): boolean {
    return this.s.remove.run(name).changes > 0;
  }

  pausedNames(): Set<string> {
    return new Set(this.s.paused.all().map((r) => r.name));
  }

  setPaused(name: string, paused: boolean, by: string): void {
    if (paused) this.s.pause.run(name, by, Date.now());
    else this.s.resume.run(name);
  }
}
