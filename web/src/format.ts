/** Durations and times in a few characters. */

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** "now", "5 min", "3 h", "Mon", "12 Mar". */
export function ago(at: number, now = Date.now()): string {
  const s = Math.max(0, (now - at) / 1000);
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  const d = new Date(at);
  if (s < 6 * 86_400) return d.toLocaleDateString(undefined, { weekday: 'short' });
  return d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
}

/** A time of day in this device's zone and format ("21:35", "9:35 PM"): the one way the page writes one. */
export function clock(at: number): string {
  return new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** clock() for today, else the day too ("12 Mar, 21:35"). */
export function moment(at: number, now = Date.now()): string {
  if (new Date(at).toDateString() === new Date(now).toDateString()) return clock(at);
  return new Date(at).toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

const UTC_TIME = /\b([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))? UTC\b/g;
const HALF_DAY = 12 * 3600_000;

/**
 * The gateway writes times in UTC ("held until 21:35 UTC", "last seen 21:35:04 UTC"): each is shown as clock()
 * writes it, the moment of that time of day nearest to `near` (when the text was written).
 */
export function localTimes(text: string, near: number): string {
  return text.replace(UTC_TIME, (_, h: string, m: string, s: string | undefined) => {
    const d = new Date(near);
    d.setUTCHours(Number(h), Number(m), Number(s ?? 0), 0);
    if (d.getTime() - near > HALF_DAY) d.setUTCDate(d.getUTCDate() - 1);
    else if (near - d.getTime() > HALF_DAY) d.setUTCDate(d.getUTCDate() + 1);
    return clock(d.getTime());
  });
}

/** "$0.0042" below a cent, "$1.25", "$1,234" (as the gateway's /status writes them). */
export function usd(v: number): string {
  if (!Number.isFinite(v) || v <= 0) return '$0.00';
  if (v < 0.01) return `$${v.toFixed(4)}`;
  if (v < 1000) return `$${v.toFixed(2)}`;
  return `$${Math.round(v).toLocaleString('en-US')}`;
}

/** "950", "12.3k", "1.2M". */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** "1,234" */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}
