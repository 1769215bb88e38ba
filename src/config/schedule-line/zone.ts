/**
 * Time zones of schedules: an IANA name is checked against the runtime's own zone data (Intl), and a slot is
 * shown as a person in that zone reads a clock, with the offset, so a run on either side of a DST change is
 * never guessed.
 */

/** The zone of this machine, for a schedule that names none. */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** True when the runtime knows this IANA zone (Europe/Bucharest, UTC, America/New_York). */
export function isTimeZone(zone: string): boolean {
  if (!zone.trim()) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    formats.set(zone, f);
  }
  return f;
}

/** "Mon 2025-03-03 07:00 GMT+02:00": the wall clock in `zone` at `at` (epoch ms). */
export function formatLocal(at: number, zone: string): string {
  const parts = Object.fromEntries(
    formatIn(zone)
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  return `${parts.weekday} ${date} ${parts.hour}:${parts.minute} ${parts.timeZoneName}`;
}
