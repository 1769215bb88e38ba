/**
 * The three sides the Codex benchmark runs side by side, behind one small interface: Rudder on
 * Codex and Rudder on Claude (each an in-process gateway driven through its HTTP API and event
 * stream, as a web client does), and the floor (a hand-written app-server client on the same codex
 * binary, config and mock). A message is sent to a conversation; a conversation the side has not
 * seen is a new one; a message sent while a turn runs is a correction (steered on every side).
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildCodexEnv } from '../../src/agents/codex/env.js';
import { WRAPPER_SYSTEM_PROMPT } from '../../src/security/wrap.js';
import { tempDir } from '../../tests/support/claude-rig.js';
import { codexAgent } from '../../tests/support/codex-gateway.js';
import { CODEX_BIN, codexHome } from '../../tests/support/codex-rig.js';
import { startInProcess } from '../../tests/support/gateway-rig.js';
import { mockCodexConfig } from '../../tests/support/mock-responses.js';
import { benchAgent } from '../context.js';
import { now, tapHttp, tapRudder } from '../floor/wire-tap.js';
import { TimedEvents } from '../web-client.js';
import { FloorClient } from './floor-client.js';
import type { RemoteMock } from './mock-worker.js';

export interface Phases {
  hostIn: number;
  /** The agent's stdin write → the model's request (the mock's clock, 1 ms steps). */
  toModel: number;
  /** The model's request → the first text on the agent's stdout (the model's latency is here). */
  model: number;
  hostOut: number;
}

function split(write: number, request: number, out: number, hostIn: number, firstTextAt: number): Phases {
  return { hostIn, toModel: request - write, model: out - request, hostOut: firstTextAt - out };
}

/** The first text on an agent's stdout: codex's agent-message delta, Claude's text delta. */
const FIRST_TEXT = /"item\/agentMessage\/delta"|"type":"text_delta"/;

export interface Sent {
  /** Epoch ms (sub-ms) just before the side was handed the message. */
  sentAt: number;
  /** When its first streamed text reached the client (the event stream; the floor's stdout). */
  firstText: Promise<number>;
  /** When the turn that answers it is over. */
  done: Promise<void>;
}

export interface Side {
  name: string;
  /** The mock's directive for a command on this side's model. */
  exec(cmd: string): string;
  send(conv: string, text: string): Promise<Sent>;
  /** When the model first got a request that holds the needle (the mock's clock). */
  seen(needle: string): Promise<number>;
  /** The host's part: from having the message (the gateway's HTTP request, the floor's call) to the agent's stdin. */
  hostIn(needle: string, sentAt: number): number | undefined;
  /** When the message was written to the agent's stdin (the turn/steer, the stdin line). */
  handedAt(needle: string): number | undefined;
  /**
   * A first text by phase: the host's part in (having the message → its write to the agent), the
   * agent's (that write → its request to the model → the first text on its stdout), the host's part out
   * (that → the client has it). `requestAt`: when the model got the request.
   */
  phases(needle: string, sentAt: number, firstTextAt: number, requestAt: number): Phases | undefined;
  /** Processes whose memory the side's warm conversations take (their trees are counted). */
  agentPids(convs: string[]): Promise<number[]>;
  close(): Promise<void>;
}

const LONG_MS = 180_000;

async function rudderSide(
  name: string,
  agent: Record<string, unknown>,
  exec: (cmd: string) => string,
  seen: (needle: string) => Promise<number>,
): Promise<Side> {
  const taps = tapRudder();
  const http = tapHttp();
  const gw = await startInProcess({ agent, steering: { maxLive: 8 } });
  const port = gw.gw.web!.address().port;
  const streams = new Map<string, TimedEvents>();
  const events = async (conv: string) => {
    let s = streams.get(conv);
    if (!s) {
      s = new TimedEvents(gw.ep, conv);
      streams.set(conv, s);
      await s.ready;
    }
    return s;
  };
  return {
    name,
    exec,
    seen,
    async send(conv, text) {
      const ev = await events(conv);
      const sentAt = now();
      const { messageId } = await gw.post(conv, text);
      const firstText = ev.next('text', messageId, LONG_MS).then((e) => e.at);
      const done = ev.next('reply', messageId, LONG_MS).then(() => undefined);
      // A steered correction has no text or reply of its own: its waits run out unread, which must not end the run.
      for (const p of [firstText, done]) p.catch(() => undefined);
      return { sentAt, firstText, done };
    },
    hostIn(needle, sentAt) {
      const atServer = http.request(port, /\/messages$/, sentAt);
      const write = taps.write(undefined, needle);
      return atServer !== undefined && write ? write.at - atServer : undefined;
    },
    handedAt: (needle) => taps.write(undefined, needle)?.at,
    phases(needle, sentAt, firstTextAt, requestAt) {
      const atServer = http.request(port, /\/messages$/, sentAt);
      const write = taps.write(undefined, needle);
      const out = write && taps.chunk(write.tap, FIRST_TEXT, write.at);
      if (atServer === undefined || !write || out === undefined) return undefined;
      return split(write.at, requestAt, out, write.at - atServer, firstTextAt);
    },
    async agentPids(convs) {
      const status = (await (await gw.api('GET', '/api/status')).json()) as {
        sessions: Array<{ conversationId: string; pid: number | null }>;
      };
      const ids = new Set(convs.map((c) => `web:${c}`));
      return [...new Set(status.sessions.filter((s) => ids.has(s.conversationId) && s.pid).map((s) => s.pid!))];
    },
    async close() {
      for (const s of streams.values()) s.close();
      await gw.stop();
    },
  };
}

export function rudderOnCodex(mock: RemoteMock): Promise<Side> {
  return rudderSide(
    'Rudder on Codex',
    codexAgent(mock.url),
    (cmd) => `[[exec:${cmd}]]`,
    (n) => mock.seen(n),
  );
}

export function rudderOnClaude(mock: RemoteMock): Promise<Side> {
  return rudderSide(
    'Rudder on Claude',
    benchAgent(mock.url),
    (cmd) => `[[bash:${cmd}]]`,
    (n) => mock.seen(n),
  );
}

/** The floor: the same codex binary, `-c` overrides, environment, thread settings and instructions, without Rudder. */
export async function codexFloor(mock: RemoteMock): Promise<Side> {
  const { home, codexHome: dir } = codexHome();
  const client = new FloorClient({
    bin: CODEX_BIN,
    config: mockCodexConfig(mock.url),
    // The environment Rudder gives its app-server: codex's own work depends on it (with this machine's CA
    // variables, SSL_CERT_*, its step from a command's end to the next request was tens of ms slower than
    // with PATH, LANG, HOME and CODEX_HOME alone), so a bare one would measure a different codex.
    env: buildCodexEnv({ inherited: process.env, extra: { HOME: home, CODEX_HOME: dir } }),
    instructions: WRAPPER_SYSTEM_PROMPT,
  });
  await client.ready;
  const cwd = tempDir('bench-floor-cwd');
  const threads = new Map<string, { id: string; running?: Promise<string> }>();
  return {
    name: 'floor (app-server client)',
    exec: (cmd) => `[[exec:${cmd}]]`,
    seen: (needle) => mock.seen(needle),
    async send(conv, text) {
      const sentAt = now();
      let thread = threads.get(conv);
      if (!thread) {
        thread = { id: await client.startThread(cwd) };
        threads.set(conv, thread);
      }
      const t = thread;
      if (t.running !== undefined) {
        const turnId = await t.running;
        client.steer(t.id, turnId, text);
        return { sentAt, firstText: new Promise<number>(() => undefined), done: Promise.resolve() };
      }
      const turn = client.turn(t.id, text);
      t.running = turn.started;
      const done = turn.done.then(() => void (t.running = undefined));
      return { sentAt, firstText: turn.firstText, done };
    },
    hostIn(needle, sentAt) {
      const write = client.taps.write('floor', needle);
      return write ? write.at - sentAt : undefined;
    },
    handedAt: (needle) => client.taps.write('floor', needle)?.at,
    phases(needle, sentAt, firstTextAt, requestAt) {
      const write = client.taps.write('floor', needle);
      const out = write && client.taps.chunk(write.tap, FIRST_TEXT, write.at);
      if (!write || out === undefined) return undefined;
      return split(write.at, requestAt, out, write.at - sentAt, firstTextAt);
    },
    agentPids: async () => [client.pid],
    close: () => client.close(),
  };
}

/** A command whose start and end the tool itself writes down (its own clock), so no host is asked when it ran. */
export class MarkedCommand {
  private readonly dir = tempDir('bench-codex-marks');

  command(tag: string, seconds: number): string {
    const f = path.join(this.dir, tag);
    return `date +%s%3N > ${f}.start; sleep ${seconds}; date +%s%3N > ${f}.end; echo slept`;
  }

  private read(tag: string, which: 'start' | 'end'): number | undefined {
    try {
      const v = Number(fs.readFileSync(path.join(this.dir, `${tag}.${which}`), 'utf8').trim());
      return Number.isFinite(v) && v > 0 ? v : undefined;
    } catch {
      return undefined;
    }
  }

  async started(tag: string, timeoutMs = LONG_MS): Promise<number> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const at = this.read(tag, 'start');
      if (at) return at;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`the command of ${tag} did not start within ${timeoutMs} ms`);
  }

  ended(tag: string): number | undefined {
    return this.read(tag, 'end');
  }
}
