/**
 * A scripted mock of the Gemini API (generativelanguage v1beta) that the real Gemini CLI accepts,
 * pointed at with GOOGLE_GEMINI_BASE_URL: `models/<m>:streamGenerateContent?alt=sse` (the agent's
 * turns, streamed), `:generateContent` (side calls, whole) and `:countTokens`. What it answers is
 * mock-plan.ts's (directives, script, latency); a shell call is a `functionCall` of the offered
 * shell tool (run_shell_command) with the arguments its schema requires.
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

export type GeminiRequest = ModelRequest & {
  /** The model named in the path. */
  model: string;
  stream: boolean;
};

export type MockGemini = MockServer<GeminiRequest>;

interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args: unknown };
  functionResponse?: { name: string; response: unknown };
}

const partsOf = (c: any): Part[] => (Array.isArray(c?.parts) ? c.parts : []);
const textsOf = (c: any) => partsOf(c).flatMap((p) => (typeof p.text === 'string' && !p.thought ? [p.text] : []));

function declarations(body: any): any[] {
  return (Array.isArray(body?.tools) ? body.tools : []).flatMap((t: any) =>
    Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : [],
  );
}

export function describeGemini(
  body: any,
): Omit<ModelRequest, 'seq' | 'at' | 'path' | 'headers' | 'body' | 'completed'> {
  const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
  let last = -1;
  contents.forEach((c, i) => {
    if (c?.role === 'model') last = i;
  });
  const tail = contents.slice(last + 1).filter((c) => c?.role !== 'model');
  const userTexts = tail.flatMap(textsOf);
  const outputs = tail.flatMap((c) => partsOf(c).filter((p) => p.functionResponse));
  const tools = declarations(body);
  return {
    side: tools.length === 0,
    toolNames: tools.map((d) => String(d?.name)),
    userTexts,
    lastUserText: userTexts.at(-1) ?? '',
    afterTool: outputs.length > 0,
    toolOutputs: outputs.map((p) => JSON.stringify(p.functionResponse!.response)),
    historyTexts: contents.filter((c) => c?.role === 'user').flatMap(textsOf),
  };
}

const USAGE = { promptTokenCount: 40, candidatesTokenCount: 7, totalTokenCount: 47 };

function chunk(model: string, parts: Part[], finish?: string): object {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
    ...(finish ? { usageMetadata: USAGE } : {}),
    modelVersion: model,
  };
}

function shellCall(body: any, command: string): Part {
  const tools = declarations(body);
  const tool = SHELL_TOOLS.map((n) => tools.find((d) => d?.name === n)).find(Boolean);
  if (!tool) throw new Error(`mock gemini: no shell tool among ${tools.map((d) => d?.name).join(', ')}`);
  return { functionCall: { name: tool.name, args: shellArgs(tool.parametersJsonSchema ?? tool.parameters, command) } };
}

async function stream(
  res: http.ServerResponse,
  x: { model: string; body: any; record: GeminiRequest; plan: MockPlan; latency: LatencyProfile | undefined },
): Promise<void> {
  const { plan, record } = x;
  if (plan.kind === 'shell') {
    const call = shellCall(x.body, plan.command);
    await toolPace(JSON.stringify(call).length, record.at, x.latency);
    sseHead(res);
    record.firstTokenAt = Date.now();
    if (!sseData(res, chunk(x.model, [call], 'STOP'))) return;
  } else if (plan.kind === 'text') {
    let started = false;
    for await (const piece of paced(plan, record.at, x.latency)) {
      if (!started) sseHead(res), (started = true), (record.firstTokenAt = Date.now());
      if (!sseData(res, chunk(x.model, [{ text: piece }]))) return;
    }
    if (!sseData(res, chunk(x.model, [{ text: '' }], 'STOP'))) return;
  }
  record.completed = true;
  record.endedAt = Date.now();
  res.end();
}

function whole(res: http.ServerResponse, model: string, body: any, plan: MockPlan, record: GeminiRequest): void {
  const parts =
    plan.kind === 'shell' ? [shellCall(body, plan.command)] : [{ text: plan.kind === 'text' ? plan.text : '' }];
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(chunk(model, parts, 'STOP')));
  record.completed = true;
  record.firstTokenAt = record.endedAt = Date.now();
}

function errorReply(res: http.ServerResponse, status: number): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code: status, message: 'Internal error from the mock', status: 'INTERNAL' } }));
}

export function startMockGemini(opts: { script?: PlanScript; latency?: LatencyProfile } = {}): Promise<MockGemini> {
  return startModelServer<GeminiRequest>(async (x) => {
    const m = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)/.exec(x.path);
    if (x.req.method !== 'POST' || !m) {
      x.res.writeHead(404, { 'content-type': 'application/json' });
      return void x.res.end('{"error":{"code":404,"message":"mock: not here","status":"NOT_FOUND"}}');
    }
    const model = decodeURIComponent(m[1]!);
    if (m[2] === 'countTokens') {
      x.res.writeHead(200, { 'content-type': 'application/json' });
      return void x.res.end('{"totalTokens":40}');
    }
    const streamed = m[2] === 'streamGenerateContent';
    const { record, plan } = await x.record({ model, stream: streamed, ...describeGemini(x.body) });
    if (plan.kind === 'hang') return;
    if (plan.kind === 'error') return errorReply(x.res, plan.status);
    if (!streamed) return whole(x.res, model, x.body, plan, record);
    await stream(x.res, { model, body: x.body, record, plan, latency: x.latency() });
  }, opts);
}
