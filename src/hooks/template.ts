/**
 * A hook's prompt template: the config's text with `{{a.b.c}}` fields filled from the delivery's JSON body.
 *
 * The template is trusted (it is the config); the values are not (anyone who holds the secret, or GitHub on behalf
 * of anyone who can comment). So:
 *   - a field is a path and nothing else: names of letters, digits, `_` and `-` joined by dots, array indices as
 *     numbers (`pull_requests.0.number`); no filters, no expressions, nothing evaluated;
 *   - only the payload's own properties are read (`__proto__`, `constructor` and inherited names are missing);
 *   - one pass: a value is never read again as a template, so a payload holding `{{...}}` stays text;
 *   - every value is cut at MAX_VALUE_CHARS and the whole at MAX_RENDERED_CHARS, each cut said in the text.
 * A missing field renders as the marker `(no a.b.c)`, so the agent sees that the payload lacked it instead of
 * reading a sentence with a hole in it; null renders as `null`, an object or array as its JSON.
 * The result is still untrusted text: it reaches the agent wrapped as external content from `hook:<name>`.
 */
import { FIELD, fieldPath } from '../config/hook-template.js';

export const MAX_VALUE_CHARS = 2_000;
export const MAX_RENDERED_CHARS = 16_000;
/** Cuts text at `max` characters, saying how much was left out. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (cut: ${text.length - max} more characters)`;
}

/** The value at `path` among the payload's own properties, or undefined. */
function lookUp(payload: unknown, path: readonly string[]): unknown {
  let at: unknown = payload;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A value as text: strings as they are, numbers and booleans written out, null as null, objects as JSON. */
function show(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return undefined;
}

/** Fills each field from the payload in one pass, then cuts the whole. */
export function renderTemplate(template: string, payload: unknown): string {
  const text = template.replace(FIELD, (whole, inside: string) => {
    const path = fieldPath(inside);
    if (!path) return whole;
    const value = show(lookUp(payload, path));
    return value === undefined ? `(no ${path.join('.')})` : cut(value, MAX_VALUE_CHARS);
  });
  return cut(text, MAX_RENDERED_CHARS);
}

/** A hook's message: its template filled, or, with none, the payload as indented JSON. */
export function renderDelivery(template: string | undefined, payload: unknown): string {
  if (template !== undefined) return renderTemplate(template, payload);
  return cut(JSON.stringify(payload, null, 2) ?? 'null', MAX_RENDERED_CHARS);
}
