/**
 * A scripted mock of the OpenAI Responses API (POST /v1/responses, streamed as server-sent events)
 * that the real codex binary accepts. Wire facts: shared/codex-notes.md. Point codex at it with
 * mockCodexConfig() (a `mock` model provider, wire_api responses, retries off).
 *
 * Replies are built from small parts: say(text), exec(cmd), write(file, text), reason(summary),
 * combined by reply(...parts); fail(429|500…) and hang() for the rest. A script (setScript) picks
 * the reply per request; without one, or when it returns undefined, directives in the newest user
 * message of the request's tail (what came after the model's last output) decide:
 *   [[exec:CMD]]        exec_command CMD (yield_time_ms 30000: its output comes back when it ends)
 *   [[escalate:CMD]]    the same with sandbox_permissions require_escalated (an approval under on-request)
 *   [[write:FILE:TEXT]] apply_patch adding FILE with TEXT (a fileChange item)
 *   [[reason:TEXT]]     a reasoning summary before the answer
 *   [[slow:MS]]         the text answer in 20 deltas spread over MS ms
 *   [[reply:TEXT]]      answer TEXT
 *   [[429:usage]]       429 usage_limit_reached, with x-codex-primary-* headers (the window resets in 2 h)
 *   [[429]]             429 rate_limit_exceeded
 *   [[500]]             500 server_error
 * The default answer is `ok` and every `tag:X` of the tail's user messages (`done ok …` after a
 * tool's output), so a test can tell which inputs a reply answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LatencyProfile } from './mock-anthropic.js';
import { closer, defaultAnswer, requestLog } from './request-log.js';

export type { LatencyProfile };

export interface ResponsesRequest {
  seq: number;
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** The codex thread the request is for (its session-id header). */
  threadId: string | undefined;
  /** The request's input items (the whole history codex sends). */
  input: any[];
  /** The items after the model's last output: what is new in this request. */
  tail: any[];
  /** Texts of the user messages in the tail (codex's environment context left out). */
  userTexts: string[];
  /** The newest of them, where directives are read ('' when the tail has none). */
  lastUserText: string;
  /** The tail carries a tool's output. */
  afterTool: boolean;
  /** Outputs of tool calls in the tail. */
  toolOutputs: string[];
  /** Every user message text of the request, oldest first. */
  historyTexts: string[];
  /** The reply was streamed to its end (a request codex dropped, e.g. for a steer, stays false). */
  completed: boolean;
  firstTokenAt?: number;
  endedAt?: number;
}

export type MockPart =
  | { kind: 'text'; text: string; chunks?: number; totalMs?: number }
  | { kind: 'exec'; cmd: string; yieldMs?: number; escalated?: boolean; justification?: string }
  | { kind: 'reasoning'; summary: string };

export type MockReply =
  | { kind: 'reply'; parts: MockPart[]; inputTokens?: number }
  | { kind: 'error'; status: number; style?: 'usage' | 'rate'; resetsAt?: number }
  | { kind: 'hang' };

export type Script = (req: ResponsesRequest) => MockReply | undefined | Promise<MockReply | undefined>;

export const say = (text: string, opts: { chunks?: number; totalMs?: number } = {}): MockPart => ({
  kind: 'text',
  text,
  ...opts,
});
export const exec = (cmd: string, opts: { yieldMs?: number; escalated?: boolean; justification?: string } = {}) =>
  ({ kind: 'exec', cmd, ...opts }) as MockPart;
export const reason = (summary: string): MockPart => ({ kind: 'reasoning', summary });
/** apply_patch (through exec_command, as the model calls it) adding a file. */
export const write = (file: string, text: string): MockPart =>
  exec(
    `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${file}\n${text
      .split('\n')
      .map((l) => `+${l}`)
      .join('\n')}\n*** End Patch\nEOF`,
  );
export const reply = (...parts: MockPart[]): MockReply => ({ kind: 'reply', parts });
export const fail = (status: number, style?: 'usage' | 'rate', resetsAt?: number): MockReply => ({
  kind: 'error',
  status,
  ...(style ? { style } : {}),
  ...(resetsAt ? { resetsAt } : {}),
});
export const hang = (): MockReply => ({ kind: 'hang' });

export interface MockResponses {
  /** The base URL codex takes (…/v1). */
  url: string;
  requests: ResponsesRequest[];
  setScript(script: Script | undefined): void;
  setLatency(profile: LatencyProfile | undefined): void;
  /** Called at once (in the same tick) when a reply has been streamed to its end. */
  onCompleted(listener: ((r: ResponsesRequest) => void) | undefined): void;
  waitFor(pred: (r: ResponsesRequest) => boolean, timeoutMs?: number): Promise<ResponsesRequest>;
  close(): Promise<void>;
}

const MODEL_OUTPUT = new Set(['function_call', 'reasoning', 'custom_tool_call', 'local_shell_call', 'web_search_call']);

function messageText(item: any): string {
  return (Array.isArray(item?.content) ? item.content : [])
    .map((c: any) => (typeof c?.text === 'string' ? c.text : ''))
    .join('\n');
}

const isUser = (item: any) =>
  item?.type === 'message' && item.role === 'user' && !messageText(item).startsWith('<environment_context>');

export function describe(
  body: any,
): Pick<
  ResponsesRequest,
  'input' | 'tail' | 'userTexts' | 'lastUserText' | 'afterTool' | 'toolOutputs' | 'historyTexts'
> {
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  let last = -1;
  input.forEach((item, i) => {
    if (MODEL_OUTPUT.has(item?.type) || (item?.type === 'message' && item.role === 'assistant')) last = i;
  });
  const tail = input.slice(last + 1);
  const userTexts = tail.filter(isUser).map(messageText);
  const outputs = tail.filter((i) => i?.type === 'function_call_output');
  return {
    input,
    tail,
    userTexts,
    lastUserText: userTexts.at(-1) ?? '',
    afterTool: outputs.length > 0,
    toolOutputs: outputs.map((o) => (typeof o.output === 'string' ? o.output : JSON.stringify(o.output))),
    historyTexts: input.filter(isUser).map(messageText),
  };
}

const WRAPPED = /<<<EXTERNAL_USER_MESSAGE id=(\w+)[^>]*>>>\n([\s\S]*?)\n<<<END_EXTERNAL_USER_MESSAGE id=\1>>>/g;

/** The inner texts of the wrapped user messages among texts. */
export function wrappedIn(texts: string[]): string[] {
  return texts.flatMap((t) => [...t.matchAll(WRAPPED)].map((m) => m[2]!));
}

/** How many wrapped user messages of the request's history contain the needle: 1 when it reached the model once. */
export function historyCopies(req: ResponsesRequest, needle: string): number {
  return wrappedIn(req.historyTexts).filter((t) => t.includes(needle)).length;
}

/** Across a log: how many completed requests brought the needle as new input (in their tail). */
export function timesSent(requests: ResponsesRequest[], needle: string): number {
  return requests.filter((r) => r.completed && wrappedIn(r.userTexts).some((t) => t.includes(needle))).length;
}

export function directiveReply(req: ResponsesRequest): MockReply {
  const t = req.lastUserText;
  if (/\[\[429:usage\]\]/.test(t)) return fail(429, 'usage');
  if (/\[\[429\]\]/.test(t)) return fail(429, 'rate');
  if (/\[\[500\]\]/.test(t)) return fail(500);
  const parts: MockPart[] = [];
  const thought = /\[\[reason:([^\]]*)\]\]/.exec(t);
  if (thought && !req.afterTool) parts.push(reason(thought[1]!));
  const run = /\[\[(exec|escalate):(.+?)\]\]/.exec(t);
  if (run && !req.afterTool)
    return reply(
      ...parts,
      exec(run[2]!, run[1] === 'escalate' ? { escalated: true, justification: 'The test asks' } : {}),
    );
  const file = /\[\[write:([^:\]]+):([^\]]*)\]\]/.exec(t);
  if (file && !req.afterTool) return reply(...parts, write(file[1]!, file[2]!));
  const answer = defaultAnswer(req);
  parts.push(say(answer.text, answer.slowMs ? { chunks: 20, totalMs: answer.slowMs } : {}));
  return reply(...parts);
}

let idCounter = 0;
const nextId = (p: string) => `${p}_mock${Date.now().toString(36)}${(idCounter++).toString(36)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sse(res: http.ServerResponse, type: string, data: object): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  return true;
}

const tokensOf = (s: string) => Math.ceil(s.length / 4);

async function stream(
  res: http.ServerResponse,
  r: MockReply & { kind: 'reply' },
  record: ResponsesRequest,
  latency: LatencyProfile | undefined,
  completed: ((r: ResponsesRequest) => void) | undefined,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = nextId('resp');
  let sent = 0;
  // Every delay is counted from the request, so timer lateness does not add up.
  const pace = async (tokens: number) => {
    if (!latency || tokens <= 0) return;
    const due = record.at + latency.firstTokenMs + ((sent + tokens - 1) * 1000) / latency.tokensPerSecond - Date.now();
    sent += tokens;
    if (due > 0) await sleep(due);
  };
  if (!sse(res, 'response.created', { response: { id } })) return;
  let outputTokens = 0;
  for (const [index, part] of r.parts.entries()) {
    if (part.kind === 'text') {
      const item = { type: 'message', id: nextId('msg'), role: 'assistant', content: [] as object[] };
      const chunks = Math.max(1, part.chunks ?? (latency ? Math.ceil(part.text.length / 16) : 1));
      const size = Math.ceil(part.text.length / chunks) || 1;
      await pace(1);
      record.firstTokenAt ??= Date.now();
      if (!sse(res, 'response.output_item.added', { output_index: index, item })) return;
      for (let i = 0; i < part.text.length; i += size) {
        const delta = part.text.slice(i, i + size);
        if (i > 0) {
          if (part.totalMs) await sleep(part.totalMs / chunks);
          else await pace(tokensOf(delta));
        }
        const ok = sse(res, 'response.output_text.delta', {
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta,
        });
        if (!ok) return;
      }
      outputTokens += tokensOf(part.text);
      const done = { ...item, content: [{ type: 'output_text', text: part.text, annotations: [] }] };
      if (!sse(res, 'response.output_item.done', { output_index: index, item: done })) return;
    } else if (part.kind === 'exec') {
      const args = JSON.stringify({
        cmd: part.cmd,
        yield_time_ms: part.yieldMs ?? 30_000,
        ...(part.escalated ? { sandbox_permissions: 'require_escalated', justification: part.justification } : {}),
      });
      const item = {
        type: 'function_call',
        id: nextId('fc'),
        call_id: nextId('call'),
        name: 'exec_command',
        arguments: args,
      };
      await pace(tokensOf(args));
      record.firstTokenAt ??= Date.now();
      if (!sse(res, 'response.output_item.added', { output_index: index, item: { ...item, arguments: '' } })) return;
      if (!sse(res, 'response.output_item.done', { output_index: index, item })) return;
      outputTokens += tokensOf(args);
    } else {
      const item = { type: 'reasoning', id: nextId('rs'), summary: [] as object[] };
      await pace(tokensOf(part.summary));
      record.firstTokenAt ??= Date.now();
      const at = { item_id: item.id, output_index: index, summary_index: 0 };
      if (!sse(res, 'response.output_item.added', { output_index: index, item })) return;
      sse(res, 'response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
      sse(res, 'response.reasoning_summary_text.delta', { ...at, delta: part.summary });
      sse(res, 'response.reasoning_summary_text.done', { ...at, text: part.summary });
      const done = { ...item, summary: [{ type: 'summary_text', text: part.summary }], encrypted_content: null };
      if (!sse(res, 'response.output_item.done', { output_index: index, item: done })) return;
    }
  }
  const input = r.inputTokens ?? 40;
  const usage = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: Math.floor(input / 4) },
    output_tokens: Math.max(1, outputTokens),
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + Math.max(1, outputTokens),
  };
  if (!sse(res, 'response.completed', { response: { id, usage } })) return;
  record.completed = true;
  record.endedAt = Date.now();
  res.end();
  completed?.(record);
}

function errorReply(res: http.ServerResponse, r: MockReply & { kind: 'error' }): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let error: object = { type: 'server_error', message: 'Internal error from the mock' };
  if (r.status === 429 && r.style === 'usage') {
    const reset = r.resetsAt ?? Math.floor(Date.now() / 1000) + 7200;
    Object.assign(headers, {
      'x-codex-primary-used-percent': '100',
      'x-codex-primary-window-minutes': '300',
      'x-codex-primary-reset-at': String(reset),
    });
    error = {
      type: 'usage_limit_reached',
      message: 'The usage limit has been reached',
      plan_type: 'plus',
      resets_at: reset,
    };
  } else if (r.status === 429) {
    headers['retry-after'] = '30';
    error = { type: 'rate_limit_exceeded', code: 'rate_limit_exceeded', message: 'Rate limit reached (mock)' };
  }
  res.writeHead(r.status, headers);
  res.end(JSON.stringify({ error }));
}

export async function startMockResponses(
  opts: { script?: Script; latency?: LatencyProfile } = {},
): Promise<MockResponses> {
  let script = opts.script;
  let latency = opts.latency;
  let completed: ((r: ResponsesRequest) => void) | undefined;
  const log = requestLog<ResponsesRequest>('mock responses');
  const requests = log.requests;

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', async () => {
      const path = (req.url ?? '').split('?')[0]!;
      if (req.method !== 'POST' || !path.endsWith('/responses'))
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"mock: not here"}}');
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        return void res.writeHead(400).end();
      }
      const sessionHeader = req.headers['session-id'] ?? req.headers['thread-id'];
      const record: ResponsesRequest = {
        seq: requests.length,
        at: Date.now(),
        path,
        headers: req.headers,
        body,
        threadId: typeof sessionHeader === 'string' ? sessionHeader : undefined,
        completed: false,
        ...describe(body),
      };
      log.add(record);
      try {
        const r = (script && (await script(record))) ?? directiveReply(record);
        if (r.kind === 'hang') return;
        if (r.kind === 'error') return errorReply(res, r);
        await stream(res, r, record, latency, completed);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500).end(String(err));
      }
    });
  });
  const close = closer(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setScript: (s) => void (script = s),
    setLatency: (p) => void (latency = p),
    onCompleted: (l) => void (completed = l),
    waitFor: log.waitFor,
    close,
  };
}

/** agent.codex.config that points codex at the mock: a `mock` provider on the Responses wire, no retries. */
export function mockCodexConfig(url: string): Record<string, string | number> {
  return {
    model_provider: 'mock',
    model: 'mock-model',
    'model_providers.mock.name': 'mock',
    'model_providers.mock.base_url': url,
    'model_providers.mock.wire_api': 'responses',
    'model_providers.mock.request_max_retries': 0,
    'model_providers.mock.stream_max_retries': 0,
  };
}
