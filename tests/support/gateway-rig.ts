/**
 * Runs a real gateway for end-to-end tests, driven through its HTTP API: the real CLI against the
 * mock Messages API, real SQLite in a temp RUDDER_HOME. In-process for most tests; as a child
 * process (`node dist/cli/main.js start`) where the test kills it with -9 and restarts it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type GatewayOptions, type RunningGateway, startGateway } from '../../src/app/start.js';
import type { Channel } from '../../src/channels/channel.js';
import { call, type Endpoint, readEvents, type SseEvent } from '../../src/cli/client.js';
import { LiveConfig, parseConfig } from '../../src/config/load.js';
import { type Logger, silentLogger } from '../../src/ops/logger.js';
import { mockAgentEnv, tempDir, waitUntil } from './claude-rig.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/cli/main.js');

/** Agent settings that point the real CLI at the mock, with a private HOME for it. */
export function agentConfig(mockUrl: string, claudeHome: string, extra: Record<string, unknown> = {}) {
  return {
    permissionMode: 'bypassPermissions',
    interruptGraceSeconds: 5,
    env: mockAgentEnv(mockUrl, claudeHome),
    ...extra,
  };
}

export interface Harness {
  ep: Endpoint;
  home: string;
  cwd: string;
  configFile: string;
  post(conv: string, text: string, clientMessageId?: string): Promise<{ messageId: string; disposition: string }>;
  /** Collects every SSE event of a conversation from the given event id (0 = all). */
  watch(conv: string, lastEventId?: number): EventWatch;
  /** A raw authenticated call, for tests that check the status code. */
  api(method: string, path: string, body?: unknown): Promise<Response>;
}

export class EventWatch {
  readonly events: SseEvent[] = [];
  private readonly abort = new AbortController();
  readonly ready: Promise<void>;

  constructor(ep: Endpoint, conv: string, lastEventId?: number) {
    let connected!: () => void;
    this.ready = new Promise((r) => (connected = r));
    const q = lastEventId === undefined ? '' : `?lastEventId=${lastEventId}`;
    void readEvents(
      ep,
      `/api/conversations/${encodeURIComponent(conv)}/events${q}`,
      (e) => {
        this.events.push(e);
        if (e.event === 'status' && e.data.state === 'connected') connected();
      },
      this.abort.signal,
    ).catch(() => undefined);
  }

  of(type: string, pred: (d: Record<string, unknown>) => boolean = () => true): SseEvent[] {
    return this.events.filter((e) => e.event === type && pred(e.data));
  }

  async wait(
    type: string,
    pred: (d: Record<string, unknown>) => boolean = () => true,
    timeoutMs = 30_000,
  ): Promise<SseEvent> {
    await waitUntil(() => this.of(type, pred).length > 0, timeoutMs);
    return this.of(type, pred)[0]!;
  }

  /** Waits for the first reply (of a kind, when given) that answers a message. */
  waitReply(messageId: string, kind?: 'reply' | 'notice', timeoutMs = 30_000): Promise<SseEvent> {
    return this.wait(
      'reply',
      (d) => (d.messageIds as string[]).includes(messageId) && (!kind || d.kind === kind),
      timeoutMs,
    );
  }

  /** Replies (kind reply or notice) that answer a message. */
  repliesFor(messageId: string, kind?: 'reply' | 'notice'): SseEvent[] {
    return this.of('reply', (d) => (d.messageIds as string[]).includes(messageId) && (!kind || d.kind === kind));
  }

  close(): void {
    this.abort.abort();
  }
}

function makeHarness(ep: Endpoint, home: string, cwd: string, configFile: string, watches: EventWatch[]): Harness {
  return {
    ep,
    home,
    cwd,
    configFile,
    post: (conv, text, clientMessageId) =>
      call(
        ep,
        'POST',
        `/api/conversations/${encodeURIComponent(conv)}/messages`,
        clientMessageId ? { text, clientMessageId } : { text },
      ),
    api: (method, p, body) =>
      fetch(ep.base + p, {
        method,
        headers: {
          authorization: `Bearer ${ep.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    watch: (conv, last) => {
      const w = new EventWatch(ep, conv, last);
      watches.push(w);
      return w;
    },
  };
}

/**
 * A test's steering settings: the spare process stays off unless the test asks for it (it is one
 * more claude process a test did not count); `spareProcess: undefined` leaves it to the default rule.
 */
function testSteering(config: Record<string, unknown>): Record<string, unknown> {
  return { spareProcess: false, ...(config.steering as Record<string, unknown> | undefined) };
}

export function writeConfig(dir: string, config: Record<string, unknown>): string {
  const file = path.join(dir, 'rudder.config.json');
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** An in-process gateway on a random port. */
export async function startInProcess(
  config: Record<string, unknown>,
  opts: {
    logger?: Logger;
    env?: NodeJS.ProcessEnv;
    home?: string;
    extraChannels?: Channel[];
    sessionFactory?: GatewayOptions['sessionFactory'];
    /** Trusts a fake push service's certificate (fake-push.ts). */
    pushAgent?: GatewayOptions['pushAgent'];
    /** The schedules' clock (a test moves it by days). */
    clock?: GatewayOptions['clock'];
  } = {},
) {
  const home = opts.home ?? tempDir('rhome');
  const cwd = tempDir('rcwd');
  const full = { web: { port: 0 }, shutdownDrainSeconds: 0, ...config, steering: testSteering(config) };
  const configFile = writeConfig(cwd, full);
  const live = new LiveConfig(configFile, parseConfig(full), {}, 0);
  const gw: RunningGateway = await startGateway({
    dataDir: home,
    config: live,
    logger: opts.logger ?? silentLogger(),
    env: { ...process.env, ...opts.env },
    extraChannels: opts.extraChannels,
    sessionFactory: opts.sessionFactory,
    pushAgent: opts.pushAgent,
    clock: opts.clock,
  });
  const { port } = gw.web!.address();
  const token = fs.readFileSync(path.join(home, 'web-token'), 'utf8').trim();
  const ep = { base: `http://127.0.0.1:${port}`, token };
  const watches: EventWatch[] = [];
  return {
    ...makeHarness(ep, home, cwd, configFile, watches),
    gw,
    async stop() {
      for (const w of watches) w.close();
      await gw.stop('test over');
    },
  };
}

/** A gateway in a child process, as `npm start` runs it. */
export async function startChild(
  config: Record<string, unknown>,
  opts: { home?: string; cwd?: string; port?: number; env?: NodeJS.ProcessEnv } = {},
) {
  const home = opts.home ?? tempDir('rhome');
  const cwd = opts.cwd ?? tempDir('rcwd');
  const configFile = writeConfig(cwd, {
    shutdownDrainSeconds: 1,
    ...config,
    steering: testSteering(config),
    web: { ...(config.web as object | undefined), port: opts.port ?? 0 },
  });
  const child: ChildProcess = spawn(process.execPath, [CLI, 'start'], {
    cwd,
    env: { ...process.env, RUDDER_HOME: home, RUDDER_LOG_LEVEL: 'debug', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  await waitUntil(() => /Open (http\S+)/.test(out) || child.exitCode !== null, 20_000);
  // Its stdout is a pipe: the address comes without the token, which is in the data dir.
  const m = /Open (http:\/\/[^/\s]+)\//.exec(out);
  if (!m) throw new Error(`gateway did not start: ${out}`);
  const ep = { base: m[1]!, token: fs.readFileSync(path.join(home, 'web-token'), 'utf8').trim() };
  const watches: EventWatch[] = [];
  return {
    ...makeHarness(ep, home, cwd, configFile, watches),
    child,
    output: () => out,
    async kill9() {
      for (const w of watches) w.close();
      child.kill('SIGKILL');
      await new Promise((r) =>
        child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r),
      );
    },
    async stop() {
      for (const w of watches) w.close();
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
