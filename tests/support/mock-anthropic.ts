/**
 * A scripted mock of the Anthropic Messages API that the real Claude Code CLI accepts.
 * Source of truth for the wire shapes: shared/claude-code-protocol.md ("Writing a mock").
 *
 * By default the reply is chosen from directives in the last user message's text:
 *   [[bash:CMD]]        call the Bash tool with CMD (then answer text after the tool result)
 *   [[slow:MS]]         stream the text reply in 20 chunks spread over MS milliseconds
 *   [[reply:TEXT]]      answer TEXT
 *   [[429:apikey]]      429 rate_limit_error, API-key style
 *   [[429:subscription]] 429 with the unified rate-limit headers (subscription style)
 *   [[500]]             500 api_error
 *   [[usage:I/O/R/W]]   report I input, O output, R cache-read and W cache-write tokens for this reply
 * Directives are read from the last text block of the last user message only, so an earlier
 * message merged into the same user turn does not fire again.
 * The default text reply is `ok` followed by every `tag:X` token seen in the last user message,
 * so a test can tell which inputs a reply answers.
 *
 * A latency profile (`latency`, off by default) makes the mock answer like a real model: the
 * first token `firstTokenMs` after the request, then `tokensPerSecond`, a token being 4 characters
 * of text or of a tool call's JSON input (see replyTiming). It applies to every reply that has
 * content, streamed or plain, side requests (title generation) included; an error answers at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closer, requestLog } from './request-log.js';

export interface MockRequest {
  seq: number;
  at: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** True for requests without tools (title generation and other side requests). */
  side: boolean;
  /** All text of the last role:user message, tool_result contents included. */
  lastUserText: string;
  /** The last text block of the last user message (system reminders skipped): where directives are read. */
  lastText: string;
  /** Whether the last user message carries a tool_result block. */
  afterTool: boolean;
  /** All user-role text in the request, oldest first. */
  historyText: string;
  /** When the reply's first content (or a plain reply) was sent, and when the reply ended (epoch ms). */
  firstTokenAt?: number;
  /** The usage a streamed reply reported (what the CLI counts for this request). */
  usage?: Required<MockUsage>;
  endedAt?: number;
}

/** How fast the mock "model" answers: time to the first token, then output tokens per second. */
export interface LatencyProfile {
  firstTokenMs: number;
  tokensPerSecond: number;
}

/** About what a real model does per call: the benchmark's default. */
export const MODEL_LATENCY: LatencyProfile = { firstTokenMs: 1500, tokensPerSecond: 60 };

/** Characters per token of the mock's simple rule. */
export const CHARS_PER_TOKEN = 4;

/** Tokens of a text under the mock's rule: one per 4 characters, rounded up. */
export function tokensOf(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * When the token at `index` (0-based) of a reply is sent, in ms after the request: the first at
 * firstTokenMs, each further one 1000/tokensPerSecond later.
 */
export function tokenAtMs(profile: LatencyProfile, index: number): number {
  return profile.firstTokenMs + (index * 1000) / profile.tokensPerSecond;
}

/** The reply's content as the tokens it is charged: its text, then a tool call's name and JSON input. */
export function replyTokens(reply: MockReply): number {
  if (reply.kind === 'text') return tokensOf(reply.text);
  if (reply.kind === 'tool') return tokensOf(reply.text ?? '') + tokensOf(reply.name + JSON.stringify(reply.input));
  return 0;
}

/**
 * The usage a reply reports: input and cache tokens in message_start, output tokens in message_delta
 * (as the API does). Unset fields: 12 input, 7 output, no cache.
 */
export interface MockUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** The usage every reply reports unless it says otherwise. */
export const DEFAULT_USAGE = { input: 12, output: 7, cacheRead: 0, cacheWrite: 0 } as const;

export type MockReply =
  | { kind: 'text'; text: string; chunks?: number; totalMs?: number; inputTokens?: number; usage?: MockUsage }
  | {
      kind: 'tool';
      name: string;
      input: Record<string, unknown>;
      /** Text written before the call; with chunks and totalMs it streams like [[slow:MS]]. */
      text?: string;
      chunks?: number;
      totalMs?: number;
      inputTokens?: number;
      usage?: MockUsage;
    }
  | { kind: 'error'; status: number; style?: 'apikey' | 'subscription'; resetsAt?: number }
  | { kind: 'hang' };

export type Script = (req: MockRequest) => MockReply | undefined | Promise<MockReply | undefined>;

export interface MockApi {
  url: string;
  /** Changes the latency profile for requests from now on (undefined: answer at once). */
  setLatency(profile: LatencyProfile | undefined): void;
  requests: MockRequest[];
  /** Requests with tools, i.e. the agent's own turns. */
  mainRequests(): MockRequest[];
  /** A script tried before the directives; return undefined to fall through. */
  setScript(script: Script | undefined): void;
  waitFor(pred: (r: MockRequest) => boolean, timeoutMs?: number): Promise<MockRequest>;
  close(): Promise<void>;
}

function blockText(block: any): string {
  if (typeof block === 'string') return block;
  if (!block || typeof block !== 'object') return '';
  if (block.type === 'text') return String(block.text ?? '');
  if (block.type === 'tool_result') {
    const c = block.content;
    return typeof c === 'string' ? c : Array.isArray(c) ? c.map(blockText).join('\n') : '';
  }
  return '';
}

function messageText(msg: any): string {
  if (!msg) return '';
  return typeof msg.content === 'string'
    ? msg.content
    : Array.isArray(msg.content)
      ? msg.content.map(blockText).join('\n')
      : '';
}

function lastTextBlock(msg: any): string {
  if (!msg) return '';
  if (typeof msg.content === 'string') return msg.content;
  const texts = (Array.isArray(msg.content) ? msg.content : []).filter(
    (b: any) => b?.type === 'text' && !String(b.text).startsWith('<system-reminder>'),
  );
  return texts.length ? String(texts[texts.length - 1].text) : '';
}

export function describeRequest(
  body: any,
): Pick<MockRequest, 'side' | 'lastUserText' | 'lastText' | 'afterTool' | 'historyText'> {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const users = messages.filter((m) => m?.role === 'user');
  const last = users[users.length - 1];
  const afterTool = Array.isArray(last?.content) && last.content.some((b: any) => b?.type === 'tool_result');
  return {
    side: !Array.isArray(body?.tools) || body.tools.length === 0,
    lastUserText: messageText(last),
    lastText: lastTextBlock(last),
    afterTool,
    historyText: users.map(messageText).join('\n---\n'),
  };
}

/** The inner text of every wrapped user message in the request (its whole history), oldest first. */
export function wrappedTexts(req: Pick<MockRequest, 'body'>): string[] {
  const texts = (Array.isArray(req.body?.messages) ? req.body.messages : []).map(messageText).join('\n');
  return [
    ...texts.matchAll(/<<<EXTERNAL_USER_MESSAGE id=(\w+)[^>]*>>>\n([\s\S]*?)\n<<<END_EXTERNAL_USER_MESSAGE id=\1>>>/g),
  ].map((m) => m[2]!);
}

/** How many wrapped user messages in the request contain the needle: 1 when an input reached the model once. */
export function wrappedCopies(req: MockRequest, needle: string): number {
  return wrappedTexts(req).filter((t) => t.includes(needle)).length;
}

export function directiveReply(req: MockRequest): MockReply {
  if (req.side) return { kind: 'text', text: 'Mock title' };
  const t = req.lastText;
  const tags = [...req.lastUserText.matchAll(/tag:([\w-]+)/g)].map((m) => `tag:${m[1]}`);
  const ok = `ok${tags.length ? ' ' + [...new Set(tags)].join(' ') : ''}`;
  if (/\[\[429:subscription\]\]/.test(t)) return { kind: 'error', status: 429, style: 'subscription' };
  if (/\[\[429(:apikey)?\]\]/.test(t)) return { kind: 'error', status: 429, style: 'apikey' };
  if (/\[\[500\]\]/.test(t)) return { kind: 'error', status: 500 };
  const u = /\[\[usage:(\d+)\/(\d+)(?:\/(\d+))?(?:\/(\d+))?\]\]/.exec(t);
  const usage = u
    ? {
        usage: {
          input: Number(u[1]),
          output: Number(u[2]),
          cacheRead: Number(u[3] ?? 0),
          cacheWrite: Number(u[4] ?? 0),
        },
      }
    : {};
  const bash = /\[\[bash:([^\]]+)\]\]/.exec(t);
  if (bash && !req.afterTool)
    return {
      kind: 'tool',
      name: 'Bash',
      input: { command: bash[1], description: 'Run the requested command' },
      ...usage,
    };
  const reply = /\[\[reply:([^\]]*)\]\]/.exec(t);
  const slow = /\[\[slow:(\d+)\]\]/.exec(t);
  const text = reply ? reply[1]! : req.afterTool ? `done ${ok}` : ok;
  if (slow)
    return {
      kind: 'text',
      text: `${text} ${'streaming '.repeat(19)}end`,
      chunks: 20,
      totalMs: Number(slow[1]),
      ...usage,
    };
  return { kind: 'text', text, ...usage };
}

let idCounter = 0;
const nextId = (p: string) => `${p}_mock${Date.now().toString(36)}${(idCounter++).toString(36)}`;

function sse(res: http.ServerResponse, event: string, data: object): boolean {
  if (res.destroyed) return false;
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  return true;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tokens per content delta under a latency profile, after a first delta of one token: one every ~67 ms at 60 tok/s. */
const TOKENS_PER_DELTA = 4;

/** A text in pieces: the first of one token, then TOKENS_PER_DELTA tokens each. */
function pieces(text: string): string[] {
  const out = [text.slice(0, CHARS_PER_TOKEN)];
  for (let i = CHARS_PER_TOKEN; i < text.length; i += TOKENS_PER_DELTA * CHARS_PER_TOKEN)
    out.push(text.slice(i, i + TOKENS_PER_DELTA * CHARS_PER_TOKEN));
  return out;
}

async function streamReply(
  res: http.ServerResponse,
  model: string,
  reply: MockReply & { kind: 'text' | 'tool' },
  record: MockRequest,
  latency: LatencyProfile | undefined,
): Promise<void> {
  const t0 = record.at;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': nextId('req') });
  // A piece goes out when its last token is due (t0 + tokenAtMs); every delay is counted from
  // the request, so timer lateness does not add up over a long reply.
  let sentTokens = 0;
  const pace = async (tokens: number) => {
    if (!latency || tokens <= 0) return;
    const due = t0 + tokenAtMs(latency, sentTokens + tokens - 1) - Date.now();
    sentTokens += tokens;
    if (due > 0) await sleep(due);
  };
  // inputTokens lets a test report a long context (the CLI's auto-compaction reads it).
  const u = {
    ...DEFAULT_USAGE,
    ...(reply.inputTokens !== undefined ? { input: reply.inputTokens } : {}),
    ...reply.usage,
  };
  record.usage = u;
  const usage = {
    input_tokens: u.input,
    output_tokens: 1,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
  };
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    record.firstTokenAt = Date.now();
    sse(res, 'message_start', {
      type: 'message_start',
      message: {
        id: nextId('msg'),
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    });
  };
  if (!latency) start();
  const delta = (index: number, d: object) =>
    sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: d });
  let index = 0;
  const text = reply.text;
  if (text) {
    const scripted = (reply.kind === 'text' || reply.kind === 'tool') && reply.totalMs;
    const parts = scripted || !latency ? undefined : pieces(text);
    if (parts) await pace(tokensOf(parts[0]!));
    start();
    if (res.destroyed) return;
    sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    if (parts) {
      for (let i = 0; i < parts.length; i++) {
        if (i > 0) await pace(tokensOf(parts[i]!));
        if (!delta(index, { type: 'text_delta', text: parts[i] })) return;
      }
    } else {
      // [[slow:MS]] and scripted chunks keep their own pacing (after the first token, with a profile).
      if (scripted && latency) await pace(1);
      const chunks = reply.kind === 'text' || reply.kind === 'tool' ? Math.max(1, reply.chunks ?? 1) : 1;
      const size = Math.ceil(text.length / chunks);
      const delay = scripted ? reply.totalMs! / chunks : 0;
      for (let i = 0; i < text.length; i += size) {
        if (!delta(index, { type: 'text_delta', text: text.slice(i, i + size) })) return;
        if (delay) await sleep(delay);
      }
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  if (reply.kind === 'tool') {
    // The tool's name is charged as the block's first tokens, its JSON input streams in pieces.
    await pace(tokensOf(reply.name));
    start();
    if (res.destroyed) return;
    sse(res, 'content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: nextId('toolu'), name: reply.name, input: {} },
    });
    const input = JSON.stringify(reply.input);
    const parts = latency ? pieces(input) : [input];
    for (const piece of parts) {
      await pace(tokensOf(piece));
      if (!delta(index, { type: 'input_json_delta', partial_json: piece })) return;
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  }
  start();
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: reply.kind === 'tool' ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: u.output },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  record.endedAt = Date.now();
  res.end();
}

function plainReply(res: http.ServerResponse, model: string, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    }),
  );
}

function errorReply(res: http.ServerResponse, reply: MockReply & { kind: 'error' }): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': nextId('req') };
  if (reply.status === 429 && reply.style === 'subscription') {
    const reset = reply.resetsAt ?? Math.floor(Date.now() / 1000) + 3600;
    Object.assign(headers, {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(reset),
      'anthropic-ratelimit-unified-5h-status': 'rejected',
      'anthropic-ratelimit-unified-5h-reset': String(reset),
      'anthropic-ratelimit-unified-5h-utilization': '1.0',
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'retry-after': '3600',
    });
  }
  const [type, message] =
    reply.status === 429
      ? ['rate_limit_error', 'Rate limited by the mock']
      : reply.status === 529
        ? ['overloaded_error', 'Internal server error from the mock']
        : reply.status === 401
          ? ['authentication_error', 'invalid x-api-key']
          : reply.status === 403
            ? ['permission_error', 'Your API key does not have permission to use the specified resource.']
            : ['api_error', 'Internal server error from the mock'];
  res.writeHead(reply.status, headers);
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

export async function startMockApi(opts: { script?: Script; latency?: LatencyProfile } = {}): Promise<MockApi> {
  let script = opts.script;
  let latency = opts.latency;
  const log = requestLog<MockRequest>('mock API');
  const requests = log.requests;

  const server = http.createServer((req, res) => {
    if (req.method === 'HEAD') return void res.writeHead(200).end();
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', async () => {
      let body: any = {};
      try {
        body = parts.length ? JSON.parse(Buffer.concat(parts).toString('utf8')) : {};
      } catch {
        res.writeHead(400).end();
        return;
      }
      const path = (req.url ?? '').split('?')[0]!;
      if (req.method !== 'POST' || !path.endsWith('/v1/messages')) {
        if (path.endsWith('/count_tokens'))
          return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"type":"error","error":{"type":"not_found_error","message":"mock"}}');
      }
      const record: MockRequest = {
        seq: requests.length,
        at: Date.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        ...describeRequest(body),
      };
      log.add(record);
      const model = String(body.model ?? 'claude-mock');
      try {
        const reply = (script && (await script(record))) ?? directiveReply(record);
        if (reply.kind === 'hang') return;
        if (reply.kind === 'error') return errorReply(res, reply);
        const profile = latency;
        if (!body.stream) {
          // A plain reply comes whole, when its last token would have.
          if (profile)
            await sleep(Math.max(0, record.at + tokenAtMs(profile, Math.max(0, replyTokens(reply) - 1)) - Date.now()));
          record.firstTokenAt = record.endedAt = Date.now();
          return plainReply(res, model, reply.kind === 'text' ? reply.text : (reply.text ?? 'ok'));
        }
        await streamReply(res, model, reply, record, profile);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500).end(String(err));
      }
    });
  });
  // A client idle between turns must not race the server closing its kept-alive socket (ECONNRESET, no retries).
  server.keepAliveTimeout = 120_000;
  const close = closer(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setLatency: (p) => void (latency = p),
    mainRequests: () => requests.filter((r) => !r.side),
    setScript: (s) => void (script = s),
    waitFor: log.waitFor,
    close,
  };
}
