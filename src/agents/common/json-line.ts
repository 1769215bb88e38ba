/**
 * One line of an agent's JSON-lines output, read as far as a JSON object (pure, never throws): the
 * first step of each protocol's parser, which then reads the object by its own wire's rules.
 */

export type JsonLine =
  | { kind: 'blank' }
  | { kind: 'malformed'; reason: string; excerpt: string }
  | { kind: 'object'; value: Record<string, unknown>; trimmed: string };

const EXCERPT = 120;

/** A short, single-line excerpt of a line for the log. */
export function excerpt(line: string): string {
  const flat = line.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}… (${line.length} chars)` : flat;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function readJsonObject(line: string): JsonLine {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { kind: 'malformed', reason: 'not JSON', excerpt: excerpt(trimmed) };
  }
  if (!isObject(value)) return { kind: 'malformed', reason: 'not a JSON object', excerpt: excerpt(trimmed) };
  return { kind: 'object', value, trimmed };
}
