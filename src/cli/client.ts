/** A client for the running gateway's HTTP API: the address and token, JSON calls, and an SSE reader. */
import fs from 'node:fs';
import path from 'node:path';
import { dataDir, findConfigFile, loadConfig } from '../config/load.js';

export interface Endpoint {
  base: string;
  token: string;
}

/** RUDDER_URL / RUDDER_TOKEN, else the config's web address and the token file in the data dir. */
export function endpoint(env: NodeJS.ProcessEnv = process.env): Endpoint {
  let base = env.RUDDER_URL;
  if (!base) {
    const { web } = loadConfig(findConfigFile()).config;
    base = `http://${web.host.includes(':') ? `[${web.host}]` : web.host}:${web.port}`;
  }
  let token = env.RUDDER_TOKEN;
  if (!token) {
    const file = path.join(dataDir(env), 'web-token');
    try {
      token = fs.readFileSync(file, 'utf8').trim();
    } catch {
      throw new Error(`No token: ${file} is missing. Start the gateway once (npm start), or set RUDDER_TOKEN.`);
    }
  }
  return { base: base.replace(/\/$/, ''), token };
}

export async function call<T>(ep: Endpoint, method: string, p: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(ep.base + p, { method, headers: { authorization: `Bearer ${ep.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new Error(`Rudder is not reachable at ${ep.base} (${(err as Error).cause ?? (err as Error).message}). Is it running? Start it with npm start.`);
  }
  const json = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!res.ok) throw new Error(`${res.status} ${json.error?.code ?? ''}: ${json.error?.message ?? res.statusText}`);
  return json as T;
}

export interface SseEvent {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/** Reads an SSE stream, calling onEvent for each event until the signal aborts or the stream ends. */
export async function readEvents(ep: Endpoint, p: string, onEvent: (e: SseEvent) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(ep.base + p, { headers: { authorization: `Bearer ${ep.token}`, accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) throw new Error(`events: ${res.status} ${res.statusText}`);
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
