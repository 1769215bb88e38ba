/** `rudder send <conversation> "text"`: sends through the web API and prints the reply stream. */
import { parseArgs } from 'node:util';
import { call, endpoint, readEvents, type SseEvent } from './client.js';

export async function run(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, timeout: { type: 'string', default: '600' } } });
  const [conversation, ...words] = positionals;
  const text = words.join(' ');
  if (!conversation || !text) {
    process.stderr.write('Usage: rudder send <conversation> "text" [--json] [--timeout seconds]\n');
    return 2;
  }
  const ep = endpoint();
  const conv = encodeURIComponent(conversation);
  const abort = new AbortController();
  let messageId: string | undefined;
  let streamed = false;
  let code = 3;
  const early: SseEvent[] = [];
  let connected: () => void;
  const ready = new Promise<void>((r) => (connected = r));

  const mine = (e: SseEvent) => {
    const ids = Array.isArray(e.data.messageIds) ? (e.data.messageIds as string[]) : [];
    return e.data.messageId === messageId || ids.includes(messageId!);
  };
  const handle = (e: SseEvent) => {
    if (!messageId) return void early.push(e);
    if (values.json) {
      if (mine(e) || e.event === 'text') process.stdout.write(`${JSON.stringify({ event: e.event, ...e.data })}\n`);
    }
    if (e.event === 'ack' && mine(e) && !values.json) process.stderr.write(`${e.data.emoji} ${e.data.kind}${e.data.note ? `: ${e.data.note}` : ''}\n`);
    if (e.event === 'text' && e.data.messageId === messageId && !values.json) {
      process.stdout.write(String(e.data.delta));
      streamed = true;
    }
    if (e.event === 'permission' && !e.data.resolved && !values.json) process.stderr.write(`🔐 permission requested for ${e.data.toolName} (request ${e.data.requestId}); answer it on the web page\n`);
    if (e.event === 'reply' && mine(e)) {
      if (!values.json) process.stdout.write(streamed ? '\n' : `${e.data.text}\n`);
      if (e.data.kind === 'reply' || e.data.kind === 'notice') {
        code = 0;
        abort.abort();
      }
    }
    if (e.event === 'error' && mine(e)) {
      if (!values.json) process.stderr.write(`error ${e.data.code}: ${e.data.message}\n`);
    }
  };
  const reading = readEvents(ep, `/api/conversations/${conv}/events`, (e) => {
    if (e.event === 'status' && e.data.state === 'connected') connected();
    handle(e);
  }, abort.signal).catch((err: Error) => {
    if (err.name !== 'AbortError') throw err;
  });
  const timer = setTimeout(() => abort.abort(), Number(values.timeout) * 1000);
  await Promise.race([ready, reading]);
  const r = await call<{ messageId: string; disposition: string; reason?: string }>(ep, 'POST', `/api/conversations/${conv}/messages`, { text });
  messageId = r.messageId;
  if (!values.json) process.stderr.write(`sent ${r.messageId}: ${r.disposition}${r.reason ? ` (${r.reason})` : ''}\n`);
  else process.stdout.write(`${JSON.stringify({ event: 'accepted', ...r })}\n`);
  if (r.disposition === 'refused' || r.disposition === 'duplicate') code = r.disposition === 'refused' ? 1 : 0;
  for (const e of early.splice(0)) handle(e);
  if (code === 3) await reading;
  clearTimeout(timer);
  abort.abort();
  if (code === 3) process.stderr.write('timed out waiting for the reply; it stays owed and the web page will show it.\n');
  return code;
}
