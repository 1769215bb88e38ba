/**
 * A client for the running gateway's HTTP API: the address and token, JSON calls, and an SSE
 * reader. It needs only the web address and the token, so it works while the config file is
 * not valid (it then says so and uses what it can).
 */
import fs from 'node:fs';
import path from 'node:path';
import { dataDir, findConfigFile } from '../config/load.js';
import { configSchema, webSchema } from '../config/schema.js';

export interface Endpoint {
  base: string;
  token: string;
}

/** An error answer of the API: the status and the gateway's own code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'ApiError';
  }
}

type Web = { enabled: boolean; host: string; port: number };

/** The web address from the config file: the whole file when valid, else its `web` section, else the defaults. */
export function webAddress(file: string | undefined, warn: (message: string) => void): Web {
  const defaults = webSchema.parse({});
  if (!file) return defaults;
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    warn(
      `${file} cannot be read as JSON (${(err as Error).message}); using the default address. Set RUDDER_URL ` +
        `to choose one.`,
    );
    return defaults;
  }
  const full = configSchema.safeParse(value);
  if (full.success) return full.data.web;
  const web = webSchema.safeParse((value as { web?: unknown } | null)?.web ?? {});
  const first = full.error.issues[0];
  const why = first ? `${first.path.join('.') || '(top level)'}: ${first.message}` : 'invalid';
  if (web.success) {
    warn(`${file} is not valid (${why}; rudder doctor lists every problem); using its web address.`);
    return web.data;
  }
  warn(`${file} is not valid, its web section too (${why}); using the default address. Set RUDDER_URL to choose one.`);
  return defaults;
}

const warnOnStderr = (m: string) => void process.stderr.write(`rudder: ${m}\n`);

/** RUDDER_URL / RUDDER_TOKEN, else the config's web address and the token file in the data dir. */
export function endpoint(
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = warnOnStderr,
): Endpoint {
  let base = env.RUDDER_URL;
  if (!base) {
    const web = webAddress(findConfigFile(process.cwd(), env), warn);
    if (!web.enabled)
      throw new Error(
        'The web channel is off in the config (web.enabled: false); rudder send and status talk to it. Turn ' +
          'it on, or set RUDDER_URL.',
      );
    // A gateway listening on every address is reached on loopback.
    const host = web.host === '0.0.0.0' ? '127.0.0.1' : web.host === '::' ? '::1' : web.host;
    base = `http://${host.includes(':') ? `[${host}]` : host}:${web.port}`;
  }
  let token = env.RUDDER_TOKEN;
  if (!token) {
    const file = path.join(dataDir(env), 'web-token');
    try {
      token = fs.readFileSync(file, 'utf8').trim();
    } catch {
      throw new Error(
        `No token: ${file} is missing. Start the gateway once (npm start), or set RUDDER_TOKEN (and ` +
          `RUDDER_HOME if the data dir is elsewhere).`,
      );
    }
  }
  return { base: base.replace(/\/$/, ''), token };
}

function unreachable(ep: Endpoint, err: unknown): Error {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return new Error(
    `Rudder is not reachable at ${ep.base} (${e.cause?.code ?? e.cause?.message ?? e.message}). Is it ` +
      `running? Start it with npm start, or set RUDDER_URL.`,
  );
}

async function errorOf(res: Response): Promise<ApiError> {
  const json = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  return new ApiError(res.status, json.error?.code ?? 'HTTP_ERROR', json.error?.message ?? res.statusText);
}

export async function call<T>(ep: Endpoint, method: string, p: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(ep.base + p, {
      method,
      headers: { authorization: `Bearer ${ep.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw unreachable(ep, err);
  }
  if (!res.ok) throw await errorOf(res);
  return (await res.json().catch(() => ({}))) as T;
}

export interface SseEvent {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/**
 * Reads an SSE stream, calling onEvent for each event until the signal aborts or the stream
 * ends. An error answer (e.g. 400 for a bad conversation id) rejects at once with an ApiError.
 */
export async function readEvents(
  ep: Endpoint,
  p: string,
  onEvent: (e: SseEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  let res: Response;
  try {
    res = await fetch(ep.base + p, {
      headers: { authorization: `Bearer ${ep.token}`, accept: 'text/event-stream' },
      signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw unreachable(ep, err);
  }
  if (!res.ok || !res.body) throw await errorOf(res);
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let sep: number;
    while ((sep = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, sep);
      buf = buf.slice(sep + 2);
      const e: SseEvent = { event: 'message', data: {} };
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) e.id = line.slice(4);
        else if (line.startsWith('event: ')) e.event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (!data) continue;
      try {
        e.data = JSON.parse(data);
      } catch {
        continue;
      }
      onEvent(e);
    }
  }
}
