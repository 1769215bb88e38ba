/** A small reader of npm's `engines.node` ranges, for the forms the lockfile holds. */
type V = [number, number, number];
const parse = (s: string): { v: V; parts: number } => {
  const bits = s
    .replace(/^v/, '')
    .split('.')
    .filter((b) => b !== '' && !/^[x*]$/i.test(b));
  return { v: [Number(bits[0] ?? 0), Number(bits[1] ?? 0), Number(bits[2] ?? 0)], parts: bits.length };
};
const cmp = (a: V, b: V) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
function comparator(c: string, v: V): boolean {
  const m = /^(>=|<=|>|<|\^|~|=)?\s*(.*)$/.exec(c.trim())!;
  const op = m[1] ?? '=';
  if (m[2] === '*' || m[2] === '') return true;
  const { v: b, parts } = parse(m[2]!);
  const upper = (level: number): V =>
    level === 0 ? [b[0] + 1, 0, 0] : level === 1 ? [b[0], b[1] + 1, 0] : [b[0], b[1], b[2] + 1];
  if (op === '>=') return cmp(v, b) >= 0;
  if (op === '>') return cmp(v, b) > 0;
  if (op === '<') return cmp(v, b) < 0;
  if (op === '<=') return cmp(v, b) <= 0;
  if (op === '^') return cmp(v, b) >= 0 && cmp(v, upper(b[0] > 0 || parts < 2 ? 0 : 1)) < 0;
  if (op === '~') return cmp(v, b) >= 0 && cmp(v, upper(parts < 2 ? 0 : 1)) < 0;
  return cmp(v, b) >= 0 && cmp(v, upper(Math.max(0, Math.min(parts, 3) - 1))) < 0; // "20", "20.x", "20.1.2"
}

/** Whether a version such as "20.19.0" is in a range such as "^20.19.0 || >=22.12.0". */
export function satisfies(version: string, range: string): boolean {
  const v = parse(version).v;
  return range.split('||').some((alt) =>
    alt
      .trim()
      .replace(/(>=|<=|>|<|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .every((c) => comparator(c, v)),
  );
}
