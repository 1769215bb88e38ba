/**
 * A scripted mock of OpenAI chat completions (POST /v1/chat/completions, streamed or whole) for the
 * agents that speak it to a provider of the user's choice: Copilot (COPILOT_PROVIDER_BASE_URL) and
 * Qwen Code (OPENAI_BASE_URL). GET /v1/models lists one model. What it answers is mock-plan.ts's
 * (directives, script, latency); a shell call is a `tool_calls` entry of the offered shell tool
 * (bash, run_shell_command) with the arguments its schema requires.
 */
import type http from 'node:http';
import {
  type LatencyProfile,
  type MockPlan,
  type MockServer,
  type ModelRequest,
  type PlanScript,
  paced,
  SHELL_TOOLS,
  shellArgs,
  sseData,
  sseHead,
  startModelServer,
  toolPace,
} from './mock-plan.js';

export type ChatRequest = ModelRequest & { model: string; stream: boolean };
export type MockChat = MockServer<ChatRequest>;

/** The model the mock lists and answers as. */
export const MOCK_CHAT_MODEL = 'mock-model';

function contentText(m: any): string {
  if (typeof m?.content === 'string') return m.content;
  return (Array.isArray(m?.content) ? m.content : [])
    .map((c: any) => (typeof c?.text === 'string' ? c.text : ''))
    .join('\n');
}

const functionsOf = (body: any): any[] =>
  (Array.isArray(body?.tools) ? body.tools : []).map((t: any) => t?.function).filter(Boolean);

export function describeChat(body: any): Omit<ModelRequest, 'seq' | 'at' | 'path' | 'headers' | 'body' | 'completed'> {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  let last = -1;
  messages.forEach((m, i) => {
    if (m?.role === 'assistant') last = i;
  });
  const tail = messages.slice(last + 1);
  const userTexts = tail.filter((m) => m?.role === 'user').map(contentText);
  const outputs = tail.filter((m) => m?.role === 'tool').map(contentText);
  const tools = functionsOf(body);
  return {
    side: tools.length === 0,
    toolNames: tools.map((f) => String(f.name)),
    userTexts,
    lastUserText: userTexts.at(-1) ?? '',
    afterTool: outputs.length > 0,
    toolOutputs: outputs,
    historyTexts: messages.filter((m) => m?.role === 'user').map(contentText),
  };
}

let counter = 0;
const nextId = (p: string) => `${p}-mock${Date.now().toString(36)}${(counter++).toString(36)}`;

const USAGE = { prompt_tokens: 40, completion_tokens: 7, total_tokens: 47 };

function shellCall(body: any, command: string): { id: string; type: 'function'; function: object } {
  const tools = functionsOf(body);
  const tool = SHELL_TOOLS.map((n) => tools.find((f) => f.name === n)).find(Boolean);
  if (!tool) throw new Error(`mock chat: no shell tool among ${tools.map((f) => f.name).join(', ')}`);
  const args = JSON.stringify(shellArgs(tool.parameters, command));
  return { id: nextId('call'), type: 'function', function: { name: tool.name, arguments: args } };
}

async function stream(
  res: http.ServerResponse,
  x: { body: any; record: ChatRequest; plan: MockPlan; latency: LatencyProfile | undefined },
): Promise<void> {
  const { plan, record } = x;
  const id = nextId('chatcmpl');
  const frame = (delta: object, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: MOCK_CHAT_MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  let finish = 'stop';
  if (plan.kind === 'shell') {
    const call = shellCall(x.body, plan.command);
    await toolPace(JSON.stringify(call).length, record.at, x.latency);
    sseHead(res);
    record.firstTokenAt = Date.now();
    if (!sseData(res, frame({ role: 'assistant', content: null, tool_calls: [{ index: 0, ...call }] }))) return;
    finish = 'tool_calls';
  } else if (plan.kind === 'text') {
    let first = true;
    for await (const piece of paced(plan, record.at, x.latency)) {
      if (first) sseHead(res), (record.firstTokenAt = Date.now());
      if (!sseData(res, frame(first ? { role: 'assistant', content: piece } : { content: piece }))) return;
      first = false;
    }
  }
  if (!sseData(res, frame({}, finish))) return;
  if (x.body?.stream_options?.include_usage) sseData(res, { ...frame({}), choices: [], usage: USAGE });
  sseData(res, '[DONE]');
  record.completed = true;
  record.endedAt = Date.now();
  res.end();
}

function whole(res: http.ServerResponse, body: any, plan: MockPlan, record: ChatRequest): void {
  const message =
    plan.kind === 'shell'
      ? { role: 'assistant', content: null, tool_calls: [shellCall(body, plan.command)] }
      : { role: 'assistant', content: plan.kind === 'text' ? plan.text : '' };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: nextId('chatcmpl'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: MOCK_CHAT_MODEL,
      choices: [{ index: 0, message, finish_reason: plan.kind === 'shell' ? 'tool_calls' : 'stop' }],
      usage: USAGE,
    }),
  );
  record.completed = true;
  record.firstTokenAt = record.endedAt = Date.now();
}

export function startMockChat(opts: { script?: PlanScript; latency?: LatencyProfile } = {}): Promise<MockChat> {
  return startModelServer<ChatRequest>(
    async (x) => {
      const path = x.path.split('?')[0]!;
      if (x.req.method === 'GET' && path.endsWith('/models')) {
        x.res.writeHead(200, { 'content-type': 'application/json' });
        const model = { id: MOCK_CHAT_MODEL, object: 'model', created: 0, owned_by: 'mock' };
        return void x.res.end(JSON.stringify({ object: 'list', data: [model] }));
      }
      if (x.req.method !== 'POST' || !path.endsWith('/chat/completions')) {
        x.res.writeHead(404, { 'content-type': 'application/json' });
        return void x.res.end('{"error":{"message":"mock: not here","type":"invalid_request_error"}}');
      }
      const streamed = x.body?.stream === true;
      const { record, plan } = await x.record({
        model: String(x.body?.model ?? ''),
        stream: streamed,
        ...describeChat(x.body),
      });
      if (plan.kind === 'hang') return;
      if (plan.kind === 'error') {
        x.res.writeHead(plan.status, { 'content-type': 'application/json' });
        return void x.res.end('{"error":{"message":"Internal error from the mock","type":"server_error"}}');
      }
      if (!streamed) return whole(x.res, x.body, plan, record);
      await stream(x.res, { body: x.body, record, plan, latency: x.latency() });
    },
    { ...opts, suffix: '/v1' },
  );
}
