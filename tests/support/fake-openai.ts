/** A fake of an OpenAI-compatible chat-completions endpoint (the local fallback model), on loopback. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAi {
  baseURL: string;
  requests: Array<{ path: string; body: any }>;
  close(): Promise<void>;
}

export async function startFakeOpenAi(reply = 'fallback answer'): Promise<FakeOpenAi> {
  const requests: FakeOpenAi['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const parsed = body ? JSON.parse(body) : undefined;
      requests.push({ path: req.url ?? '', body: parsed });
      res.setHeader('content-type', 'application/json');
      if (req.url?.endsWith('/models'))
        return void res.end(JSON.stringify({ object: 'list', data: [{ id: 'local-model', object: 'model' }] }));
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: parsed?.model ?? 'local-model',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply } }],
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((r) => server.close(() => r())) };
}
