/**
 * The scripted model behind the Gemini and chat-completions mocks (mock-gemini.ts, mock-chat.ts):
 * what it answers, decided from directives in the newest user text of the request (what came
 * after the model's last output), and how fast. Each mock only turns a plan into its own wire.
 *   [[bash:CMD]]   call the agent's shell tool with CMD (then `done ok …` after its output)
 *   [[slow:MS]]    the text answer in 20 pieces spread over MS ms
 *   [[reply:TEXT]] answer TEXT
 *   [[500]]        HTTP 500
 *   [[hang]]       never answer
 * The default answer is `ok` and every `tag:X` of the new user texts, so a test can tell which
 * inputs a reply answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LatencyProfile, tokenAtMs } from './mock-anthropic.js';
import { closer, defaultAnswer, requestLog } from './request-log.js';

export type { LatencyProfile };

export type MockPlan =
  | { kind: 'text'; text: string; chunks?: number; totalMs?: number }
  | { kind: 'shell'; command: string }
  | { kind: 'error'; status: number }
  | { kind: 'hang' };

/** What every request log entry of these mocks holds, whatever the wire. */
export interface ModelRequest {
  seq: number;
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** A request without tools (a title, a routing or a summary call), answered with plain text. */
  side: boolean;
  /** Names of the tools the agent offered the model. */
  toolNames: string[];
  /** User texts after the model's last output: what is new in this request. */
  userTexts: string[];
  lastUserText: string;
  /** The new part carries a tool's output. */
  afterTool: boolean;
  toolOutputs: string[];
  /** Every user text of the request, oldest first: the context the model sees. */
  historyTexts: string[];
  /** The reply was sent to its end. */
  completed: boolean;
  firstTokenAt?: number;
  endedAt?: number;
}

export type PlanScript = (req: ModelRequest) => MockPlan | undefined | Promise<MockPlan | undefined>;

export function directivePlan(req: ModelRequest): MockPlan {
  const t = req.lastUserText;
  if (/\[\[500\]\]/.test(t)) return { kind: 'error', status: 500 };
  if (/\[\[hang\]\]/.test(t)) return { kind: 'hang' };
  const bash = /\[\[bash:(.+?)\]\]/.exec(t);
  if (bash && !req.afterTool && !req.side) return { kind: 'shell', command: bash[1]! };
  const answer = defaultAnswer(req);
  if (answer.slowMs) return { kind: 'text', text: answer.text, chunks: 20, totalMs: answer.slowMs };
  return { kind: 'text', text: answer.text };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pieces of a text answer and the wait before each: the plan's own pacing, the latency profile's, or none. */
export async function* paced(
  plan: MockPlan & { kind: 'text' },
  at: number,
  latency: LatencyProfile | undefined,
): AsyncGenerator<string> {
  const chunks = Math.max(1, plan.chunks ?? (latency ? Math.ceil(plan.text.length / 16) : 1));
  const size = Math.ceil(plan.text.length / chunks) || 1;
  let tokens = 0;
  for (let i = 0; i < plan.text.length || i === 0; i += size) {
    const piece = plan.text.slice(i, i + size);
    if (plan.totalMs && i > 0) await sleep(plan.totalMs / chunks);
    else if (latency) {
      tokens += Math.max(1, Math.ceil(piece.length / 4));
      // Counted from the request, so timer lateness does not add up.
      const due = at + tokenAtMs(latency, tokens - 1) - Date.now();
      if (due > 0) await sleep(due);
    }
    yield piece;
  }
}

/** Waits as long as a tool call of this many characters takes under the profile. */
export async function toolPace(chars: number, at: number, latency: LatencyProfile | undefined): Promise<void> {
  if (!latency) return;
  const due = at + tokenAtMs(latency, Math.ceil(chars / 4) - 1) - Date.now();
  if (due > 0) await sleep(due);
}

/** The arguments for the agent's shell tool: the command, and what its schema requires besides. */
export function shellArgs(schema: any, command: string): Record<string, unknown> {
  const args: Record<string, unknown> = { command };
  const props = schema?.properties ?? {};
  for (const name of Array.isArray(schema?.required) ? schema.required : []) {
    if (name in args) continue;
    const p = props[name] ?? {};
    if (p.default !== undefined) args[name] = p.default;
    else if (Array.isArray(p.enum)) args[name] = p.enum[0];
    else if (p.type === 'boolean') args[name] = false;
    else if (p.type === 'number' || p.type === 'integer') args[name] = 30_000;
    else args[name] = 'Run the requested command';
  }
  return args;
}

/** The first offered tool whose name is one of the shell tools the agents here use. */
export const SHELL_TOOLS = ['run_shell_command', 'bash', 'Bash', 'shell'];

export interface MockServer<R extends ModelRequest> {
  url: string;
  requests: R[];
  setScript(script: PlanScript | undefined): void;
  setLatency(profile: LatencyProfile | undefined): void;
  /** Requests with tools: the agent's own turns. */
  mainRequests(): R[];
  waitFor(pred: (r: R) => boolean, timeoutMs?: number): Promise<R>;
  close(): Promise<void>;
}

export interface Exchange<R extends ModelRequest> {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  path: string;
  body: any;
  /** Logs the request (the wire's describer fills in the rest) and decides the reply. */
  record(
    fields: Omit<R, 'seq' | 'at' | 'path' | 'headers' | 'body' | 'completed'>,
  ): Promise<{ record: R; plan: MockPlan }>;
  latency(): LatencyProfile | undefined;
}

/**
 * The HTTP side both mocks share: JSON bodies, the request log with waiters, the script, the
 * latency profile and a close that drops open streams. `handle` speaks the wire.
 */
export async function startModelServer<R extends ModelRequest>(
  handle: (x: Exchange<R>) => Promise<void>,
  opts: { script?: PlanScript; latency?: LatencyProfile; suffix?: string } = {},
): Promise<MockServer<R>> {
  let script = opts.script;
  let latency = opts.latency;
  const log = requestLog<R>('mock');
  const requests = log.requests;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', async () => {
      let body: any = {};
      try {
        body = parts.length ? JSON.parse(Buffer.concat(parts).toString('utf8')) : {};
      } catch {
        return void res.writeHead(400).end();
      }
      const path = req.url ?? '';
      const x: Exchange<R> = {
        req,
        res,
        path,
        body,
        latency: () => latency,
        async record(fields) {
          const record = { seq: requests.length, at: Date.now(), path, headers: req.headers, body, completed: false };
          const full = { ...record, ...fields } as R;
          log.add(full);
          return { record: full, plan: (script && (await script(full))) ?? directivePlan(full) };
        },
      };
      try {
        await handle(x);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500).end(String(err));
      }
    });
  });
  const close = closer(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${opts.suffix ?? ''}`,
    requests,
    setScript: (s) => void (script = s),
    setLatency: (p) => void (latency = p),
    mainRequests: () => requests.filter((r) => !r.side),
    waitFor: log.waitFor,
    close,
  };
}

/** Starts a server-sent-events answer. */
export function sseHead(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** One `data:` event; false when the client is gone. */
export function sseData(res: http.ServerResponse, data: unknown): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  return true;
}
