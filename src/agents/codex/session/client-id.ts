/**
 * The client message id Rudder gives every input it hands codex (turn/start and turn/steer's
 * clientUserMessageId). Codex echoes it on the userMessage item when the input is taken in, and
 * keeps it in the thread, so it names the Rudder inputs it carries: attribution while Rudder
 * runs, and after a restart (thread/resume lists the items) which inputs the thread already holds.
 */
import { randomUUID } from 'node:crypto';

const PREFIX = 'rudder1.';

export function encodeClientId(inputIds: string[]): string {
  const body = Buffer.from(JSON.stringify({ n: randomUUID().slice(0, 8), ids: inputIds })).toString('base64url');
  return `${PREFIX}${body}`;
}

/** The input ids a client id names; undefined for one Rudder did not make. */
export function decodeClientId(clientId: string | null | undefined): string[] | undefined {
  if (!clientId?.startsWith(PREFIX)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(clientId.slice(PREFIX.length), 'base64url').toString('utf8')) as { ids?: unknown };
    return Array.isArray(v.ids) && v.ids.every((x) => typeof x === 'string') ? (v.ids as string[]) : undefined;
  } catch {
    return undefined;
  }
}
