/**
 * The benchmark's view of a CLI process's pipes, the same for Rudder and for the SDK floor: when
 * the process was spawned, when each stdin write was made and when each stdout chunk reached the
 * host process. It splits a latency into the host's part (before its write, after the CLI's
 * output) and the CLI's part (in between), which is what "overhead over the floor" is made of.
 *
 * For Rudder it wraps AgentProcess.spawn in this process (the in-process gateway's agents): the
 * write method, and a stdout listener put in front of Rudder's own. Nothing Rudder does changes.
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { AgentProcess } from '../../src/agents/claude/process.js';

/** Epoch milliseconds with sub-millisecond precision (Date.now() has 1 ms steps). */
export const now = () => performance.timeOrigin + performance.now();

export interface Tap {
  label: string;
  pid: number;
  /** When the host called spawn, and when it returned. */
  spawnAt: number;
  spawnedAt: number;
  writes: Array<{ at: number; text: string }>;
  chunks: Array<{ at: number; text: string }>;
}

export class WireTaps {
  readonly taps: Tap[] = [];

  /** Records a child's stdin writes and stdout chunks (the stdout listener runs before any other). */
  attach(label: string, child: Pick<ChildProcess, 'stdout' | 'stdin' | 'pid'>, spawnAt: number): Tap {
    const tap: Tap = { label, pid: child.pid ?? -1, spawnAt, spawnedAt: now(), writes: [], chunks: [] };
    this.taps.push(tap);
    child.stdout!.prependListener('data', (d: Buffer) => void tap.chunks.push({ at: now(), text: d.toString('utf8') }));
    const stdin = child.stdin!;
    const write = stdin.write.bind(stdin) as (...a: unknown[]) => boolean;
    (stdin as unknown as { write: (...a: unknown[]) => boolean }).write = (data: unknown, ...rest: unknown[]) => {
      tap.writes.push({ at: now(), text: String(data) });
      return write(data, ...rest);
    };
    return tap;
  }

  of(label: string | undefined): Tap[] {
    return label === undefined ? this.taps : this.taps.filter((t) => t.label === label);
  }

  /** The first stdin write containing `needle`, in any process of the label (any process at all without one). */
  write(label: string | undefined, needle: string): { tap: Tap; at: number } | undefined {
    for (const tap of this.of(label)) {
      const w = tap.writes.find((x) => x.text.includes(needle));
      if (w) return { tap, at: w.at };
    }
    return undefined;
  }

  /** The first stdout chunk at or after `after` matching the pattern, in the given processes. */
  chunk(where: string | Tap, pattern: RegExp, after: number): number | undefined {
    let best: number | undefined;
    for (const tap of typeof where === 'string' ? this.of(where) : [where]) {
      const c = tap.chunks.find((x) => x.at >= after && pattern.test(x.text));
      if (c && (best === undefined || c.at < best)) best = c.at;
    }
    return best;
  }
}

/** A text delta on the CLI's stdout (stream-json with --include-partial-messages). */
export const TEXT_DELTA = /"type":"text_delta"/;

let installed: WireTaps | undefined;
const untaps: Array<() => void> = [];

/** Removes every tap (after a section: the next one measures untouched code). */
export function untapAll(): void {
  for (const u of untaps.splice(0)) u();
  installed = undefined;
  httpTap = undefined;
}

/** Taps every agent process the in-process gateway spawns from now on, labelled by conversation. */
export function tapRudder(): WireTaps {
  if (installed) return installed;
  const taps = new WireTaps();
  const original = AgentProcess.spawn;
  untaps.push(() => void (AgentProcess.spawn = original));
  const spawn = AgentProcess.spawn.bind(AgentProcess);
  AgentProcess.spawn = (spec) => {
    const at = now();
    const proc = spawn(spec);
    const child = (proc as unknown as { child: ChildProcess }).child;
    // AgentProcess.write calls the child's stdin.write, which the tap wraps.
    taps.attach(spec.label, child, at);
    return proc;
  };
  installed = taps;
  return taps;
}

/** What the gateway's HTTP server saw: when each request arrived, and when each event-stream frame was written. */
export interface HttpTap {
  requests: Array<{ at: number; port: number; method: string; url: string }>;
  frames: Array<{ at: number; port: number; url: string; text: string }>;
  /** The first request to `port` at or after `after` whose URL matches. */
  request(port: number, url: RegExp, after: number): number | undefined;
  /** The first event-stream frame on `port`, of a stream whose URL matches, at or after `after`, whose text matches. */
  frame(port: number, url: RegExp, text: RegExp, after: number): number | undefined;
}

let httpTap: HttpTap | undefined;

/** Taps every HTTP server in this process (the gateway's web channel among them), from now on. */
export function tapHttp(): HttpTap {
  if (httpTap) return httpTap;
  const tap: HttpTap = {
    requests: [],
    frames: [],
    request: (port, url, after) => tap.requests.find((r) => r.port === port && r.at >= after && url.test(r.url))?.at,
    frame: (port, url, text, after) =>
      tap.frames.find((f) => f.port === port && f.at >= after && url.test(f.url) && text.test(f.text))?.at,
  };
  const emit = http.Server.prototype.emit;
  untaps.push(() => void (http.Server.prototype.emit = emit));
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
    if (event === 'request') {
      const at = now();
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      const port = req.socket.localPort ?? 0;
      const url = req.url ?? '';
      tap.requests.push({ at, port, method: req.method ?? '', url });
      if (/\/events(\?|$)/.test(url)) {
        const write = res.write.bind(res) as (...a: unknown[]) => boolean;
        (res as unknown as { write: (...a: unknown[]) => boolean }).write = (chunk: unknown, ...rest: unknown[]) => {
          tap.frames.push({ at: now(), port, url, text: String(chunk) });
          return write(chunk, ...rest);
        };
      }
    }
    return (emit as (this: http.Server, e: string, ...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof emit;
  httpTap = tap;
  return tap;
}
