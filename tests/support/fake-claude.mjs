#!/usr/bin/env node
// A tiny stand-in for `claude -p --input-format stream-json`, only for faults the real CLI will not
// produce on demand. FAKE_CLAUDE_MODE picks the fault:
//   stderr-flood   write FAKE_STDERR_BYTES (default 1 MB) to stderr during the turn, then answer
//   malformed      write malformed lines and an unknown frame around a normal answer
//   eof-no-result  start the turn, then exit 0 without a result
//   midframe       start the turn, write half a frame, then exit 1
//   echo           answer every message normally (default)
import readline from 'node:readline';

const mode = process.env.FAKE_CLAUDE_MODE ?? 'echo';
const sid = process.env.FAKE_SESSION_ID ?? '00000000-0000-4000-8000-00000000f00d';
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const init = () => out({ type: 'system', subtype: 'init', session_id: sid, model: 'fake', cwd: process.cwd(), tools: [] });
const result = (uuid, text) =>
  out({ type: 'result', subtype: 'success', is_error: false, result: text, session_id: sid, num_turns: 1, duration_ms: 5, total_cost_usd: 0.001, usage: { input_tokens: 1, output_tokens: 1 }, terminal_reason: 'completed', user_message_uuid: uuid, user_message_uuids: [uuid] });

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', async (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.type !== 'user') return;
  const uuid = msg.uuid;
  out({ type: 'command_lifecycle', command_uuid: uuid, state: 'started' });
  init();
  if (mode === 'stderr-flood') {
    const total = Number(process.env.FAKE_STDERR_BYTES ?? 1024 * 1024);
    const chunk = 'x'.repeat(1023) + '\n';
    let written = 0;
    while (written < total) {
      // Blocking write semantics: if the parent stops reading stderr this never finishes.
      await new Promise((r) => (process.stderr.write(chunk) ? r() : process.stderr.once('drain', r)));
      written += chunk.length;
    }
    out({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'after the flood' }] } });
    result(uuid, `flooded ${written} bytes`);
    return;
  }
  if (mode === 'malformed') {
    process.stdout.write('this is not json\n');
    process.stdout.write('{"type":"assistant","message":\n');
    process.stdout.write('[1,2,3]\n');
    out({ type: 'result' });
    out({ type: 'mystery_frame', payload: 42 });
    out({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'still here' }] } });
    result(uuid, 'still here');
    return;
  }
  if (mode === 'eof-no-result') {
    out({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'partial' }] } });
    setTimeout(() => process.exit(0), 50);
    return;
  }
  if (mode === 'midframe') {
    process.stdout.write('{"type":"assistant","message":{"role":"assis', () => process.exit(1));
    return;
  }
  out({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'echo' }] } });
  result(uuid, 'echo');
});
rl.on('close', () => process.exit(0));
