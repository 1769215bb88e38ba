#!/usr/bin/env node
// HTTP load for the gateway, in its own process so the client does not share the gateway's thread.
// argv: base token conversations total. Each conversation posts its next message as soon as the
// previous POST answered 202. Prints one JSON line: sent, elapsedMs, POST latencies and dispositions.
import http from 'node:http';

const [base, token, convArg, totalArg] = process.argv.slice(2);
const conversations = Number(convArg);
const total = Number(totalArg);
const url = new URL(base);
const agent = new http.Agent({ keepAlive: true, maxSockets: conversations });
const latencies = [];
const dispositions = {};
let next = 0;

function post(key, text) {
  const body = JSON.stringify({ text });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `/api/conversations/${key}/messages`,
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let data = '';
        res.on('data', (c) => (data += c));
        res.on('end', () =>
          res.statusCode === 202 ? resolve(JSON.parse(data)) : reject(new Error(`${res.statusCode} ${data}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function worker(c) {
  while (next < total) {
    const i = next++;
    const t0 = performance.now();
    const r = await post(`http-${conversations}-${c}`, `message ${i}`);
    latencies.push(performance.now() - t0);
    dispositions[r.disposition] = (dispositions[r.disposition] ?? 0) + 1;
  }
}

const start = performance.now();
await Promise.all(Array.from({ length: conversations }, (_, c) => worker(c)));
const elapsedMs = performance.now() - start;
agent.destroy();
process.stdout.write(JSON.stringify({ sent: total, elapsedMs, latencies, dispositions }) + '\n');
