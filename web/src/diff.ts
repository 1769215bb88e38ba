/** A line diff of an edit (old text to new), for a tool step; context around changes only. */

export interface DiffLine {
  type: ' ' | '+' | '-';
  text: string;
}

/** Beyond this many lines on a side, the whole old text is shown removed and the new added. */
const MAX_LCS = 600;
const CONTEXT = 3;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) endA--, endB--;
  const head = a.slice(0, start).map((text): DiffLine => ({ type: ' ', text }));
  const tail = a.slice(endA).map((text): DiffLine => ({ type: ' ', text }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  return [...head, ...middle(midA, midB), ...tail];
}

function middle(a: string[], b: string[]): DiffLine[] {
  if (a.length > MAX_LCS || b.length > MAX_LCS)
    return [...a.map((text): DiffLine => ({ type: '-', text })), ...b.map((text): DiffLine => ({ type: '+', text }))];
  // Longest common subsequence, table from the end.
  const n = a.length;
  const m = b.length;
  const t = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      t[i]![j] = a[i] === b[j] ? t[i + 1]![j + 1]! + 1 : Math.max(t[i + 1]![j]!, t[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) out.push({ type: ' ', text: a[i]! }), i++, j++;
    else if (t[i + 1]![j]! >= t[i]![j + 1]!) out.push({ type: '-', text: a[i++]! });
    else out.push({ type: '+', text: b[j++]! });
  }
  while (i < n) out.push({ type: '-', text: a[i++]! });
  while (j < m) out.push({ type: '+', text: b[j++]! });
  return out;
}

/** Drops unchanged lines far from any change; a gap is marked by null. */
export function withContext(lines: DiffLine[], context = CONTEXT): Array<DiffLine | null> {
  const keep = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.type === ' ') return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep[k] = true;
  });
  const out: Array<DiffLine | null> = [];
  lines.forEach((l, i) => {
    if (keep[i]) out.push(l);
    else if (out.at(-1) !== null) out.push(null);
  });
  if (out[0] === null) out.shift();
  if (out.at(-1) === null) out.pop();
  return out;
}
