/**
 * agent.codex.config as codex command-line overrides: each dotted key and its JSON value become one
 * `-c key=value`, the value written as a TOML literal (codex parses it as TOML and, failing that,
 * takes the raw text as a string, so an unquoted string would change meaning with its content).
 */
import { CONFIG_KEY } from '../../config/codex-config.js';
import { RudderError } from '../../errors.js';

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** A TOML basic string: quoted, with `\`, `"` and control characters escaped. */
export function tomlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A JSON value as a TOML literal; `at` names it in the error for what TOML cannot hold. */
export function tomlLiteral(value: unknown, at = 'value'): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RudderError('CONFIG_INVALID', `${at}: ${value} is not a TOML number.`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map((v, i) => tomlLiteral(v, `${at}[${i}]`)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([k, v]) => `${BARE_KEY.test(k) ? k : tomlString(k)} = ${tomlLiteral(v, `${at}.${k}`)}`,
    );
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  throw new RudderError('CONFIG_INVALID', `${at}: TOML has no null; leave the key out instead.`);
}

/** `-c key=value` pairs, in the order the keys were given. */
export function configArgs(config: Record<string, unknown> = {}): string[] {
  return Object.entries(config).flatMap(([key, value]) => {
    if (!CONFIG_KEY.test(key))
      throw new RudderError('CONFIG_INVALID', `agent.codex.config: "${key}" is not a dotted key (a.b.c).`);
    return ['-c', `${key}=${tomlLiteral(value, `agent.codex.config.${key}`)}`];
  });
}
