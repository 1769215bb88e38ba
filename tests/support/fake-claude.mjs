#!/usr/bin/env node
// A tiny stand-in for `claude -p --input-format stream-json`, only for faults the real CLI will not
// produce on demand. FAKE_CLAUDE_MODE picks the fault:
//   stderr-flood   write FAKE_STDERR_BYTES (default 1 MB) to stderr during the turn, then answer
//   malformed      write malformed lines and an unknown frame around a normal answer
//   eof-no-result  start the turn, then exit 0 without a result
//   midframe       start the turn, write half a frame, then exit 1
//   echo           answer every message normally (default); a message with [[late-429]] gets a
//                  429 result after FAKE_DELAY_MS (1000), interrupts ignored; as a plain `claude -p` (the prompt on
//                  stdin, no stream-json input) it answers the one prompt and exits, like a one-shot turn
//   queue          one turn at a time, like the CLI's own queue: a message written during a turn
//                  waits ('queued') and starts the moment that turn ends; a turn lasts [[delay:MS]]
//                  (50); an interrupt is read FAKE_INTERRUPT_LAG_MS late (0), as when it crosses
//                  the CLI draining its queue, then cancels what is queued and aborts what runs;
//                  a turn of [[fail-exit]] fails (session not found), then the process exits
//   wrap           run the real CLI (FAKE_CLAUDE_REAL) in between, passing everything through, and
//                  inject a fault into the turn of a user message that carries [[fault:NAME]]:
//                  malformed, stderr-flood, midframe or eof (see injectFault below). Written as
//                  [[fault:NAME:ID]] with FAKE_FAULT_DIR set, it fires once per ID, not again when
//                  the message is run again (a transient fault rather than a poison message).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const mode = process.env.FAKE_CLAUDE_MODE ?? 'echo';
// Like the CLI: the session resumed (--resume), else a new one of its own (two conversations never share one).
const resumed = process.argv.includes('--resume') ? process.argv[process.argv.indexOf('--resume') + 1] : undefined;
const sid = process.env.FAKE_SESSION_ID ?? resumed ?? randomUUID();
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const init = () =>
  out({ type: 'system', subtype: 'init', session_id: sid, model: 'fake', cwd: process.cwd(), tools: [] });
const result = (uuid, text) =>
  out({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: text,
    session_id: sid,
    num_turns: 1,
    duration_ms: 5,
    total_cost_usd: 0.001,
    usage: { input_tokens: 1, output_tokens: 1 },
    terminal_reason: 'completed',
    user_message_uuid: uuid,
    user_message_uuids: [uuid],
  });

const MALFORMED = [
  'this is not json',
  '{"type":"assistant","message":',
  '[1,2,3]',
  '{"type":"result"}',
  '{"type":"mystery_frame","payload":42}',
];

/** Writes `total` bytes to stderr, waiting for the pipe to drain like a real blocking writer. */
async function floodStderr(total) {
  const chunk = 'x'.repeat(1023) + '\n';
  let written = 0;
  while (written < total) {
    // Blocking write semantics: if the parent stops reading stderr this never finishes.
    await new Promise((r) => (process.stderr.write(chunk) ? r() : process.stderr.once('drain', r)));
    written += chunk.length;
  }
  return written;
}

/** True the first time a fault id is seen (a marker file per id); always true without an id. */
function firstTime(id) {
  const dir = process.env.FAKE_FAULT_DIR;
  if (!id || !dir) return true;
  try {
    fs.writeFileSync(path.join(dir, id), '', { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

function wrap() {
  const env = { ...process.env };
  delete env.FAKE_CLAUDE_MODE;
  delete env.FAKE_CLAUDE_REAL;
  const child = spawn(process.env.FAKE_CLAUDE_REAL, process.argv.slice(2), { stdio: ['pipe', 'pipe', 'pipe'], env });
  const pending = [];
  child.stdin.on('error', () => undefined);
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.includes('"type":"user"'))
      for (const m of line.matchAll(/\[\[fault:([\w-]+)(?::([\w-]+))?\]\]/g)) if (firstTime(m[2])) pending.push(m[1]);
    child.stdin.write(line + '\n');
  });
  process.stdin.on('end', () => child.stdin.end());
  child.stderr.pipe(process.stderr);
  let dying = false;
  const die = (code) => {
    dying = true;
    child.kill('SIGKILL');
    process.stdout.write('', () => process.exit(code));
  };
  // Faults fire when the turn of the message that asked for them starts (its system/init frame).
  const injectFault = (fault) => {
    if (fault === 'malformed') for (const l of MALFORMED) process.stdout.write(l + '\n');
    else if (fault === 'stderr-flood') void floodStderr(Number(process.env.FAKE_STDERR_BYTES ?? 1024 * 1024));
    else if (fault === 'midframe') process.stdout.write('{"type":"assistant","message":{"role":"assis', () => die(1));
    else if (fault === 'eof') die(0);
  };
  let buf = '';
  child.stdout.on('data', (chunk) => {
    if (dying) return;
    buf += chunk.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0 && !dying) {
      const line = buf.slice(0, nl + 1);
      buf = buf.slice(nl + 1);
      process.stdout.write(line);
      if (pending.length && line.includes('"subtype":"init"')) injectFault(pending.shift());
    }
  });
  // Stopped politely: let the real CLI clean up its tools, then die the way it did.
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig));
  child.on('close', (code, signal) => {
    if (dying) return;
    if (buf) process.stdout.write(buf);
    // Die the way the real CLI died, so the parent sees the same exit.
    process.stdout.write('', () => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
  });
}

async function answerOnce() {
  let prompt = '';
  for await (const chunk of process.stdin) prompt += chunk;
  init();
  out({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'echo' }] } });
  out({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: `echo ${prompt.length}`,
    session_id: sid,
    num_turns: 1,
    duration_ms: 5,
    total_cost_usd: 0.001,
    usage: { input_tokens: 1, output_tokens: 1 },
    terminal_reason: 'completed',
  });
  process.stdout.write('', () => process.exit(0));
}

function queueMode() {
  const queue = [];
  let running;
  const lag = Number(process.env.FAKE_INTERRUPT_LAG_MS ?? 0);
  const next = () => {
    if (running || queue.length === 0) return;
    const m = queue.shift();
    out({ type: 'command_lifecycle', command_uuid: m.uuid, state: 'started' });
    init();
    const delay = Number(/\[\[delay:(\d+)\]\]/.exec(m.text)?.[1] ?? 50);
    running = {
      uuid: m.uuid,
      timer: setTimeout(() => {
        running = undefined;
        if (m.text.includes('[[fail-exit]]')) {
          // The turn fails, then the process exits with what it still had queued.
          out({
            type: 'result',
            subtype: 'error_during_execution',
            is_error: true,
            result: `No conversation found with session ID: ${sid}`,
            session_id: sid,
            num_turns: 0,
            duration_ms: 5,
            user_message_uuids: [m.uuid],
          });
          setTimeout(() => process.exit(1), Number(process.env.FAKE_EXIT_DELAY_MS ?? 100));
          return;
        }
        out({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'echo' }] } });
        result(m.uuid, 'echo');
        next();
      }, delay),
    };
  };
  const rl = readline.createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.type === 'user') {
      queue.push({ uuid: msg.uuid, text: JSON.stringify(msg.message.content) });
      out({ type: 'command_lifecycle', command_uuid: msg.uuid, state: 'queued' });
      next();
    } else if (msg.type === 'control_request' && msg.request?.subtype === 'interrupt') {
      setTimeout(() => {
        for (const c of msg.request.cancel_queued ? queue.splice(0) : [])
          out({ type: 'command_lifecycle', command_uuid: c.uuid, state: 'cancelled' });
        out({
          type: 'control_response',
          response: { subtype: 'success', request_id: msg.request_id, response: { still_queued: [] } },
        });
        if (!running) return;
        clearTimeout(running.timer);
        const uuid = running.uuid;
        running = undefined;
        out({
          type: 'result',
          subtype: 'error_during_execution',
          is_error: true,
          result: '',
          session_id: sid,
          num_turns: 1,
          duration_ms: 5,
          terminal_reason: 'aborted_streaming',
          user_message_uuids: [uuid],
        });
        next();
      }, lag);
    }
  });
  rl.on('close', () => process.exit(0));
}

if (mode === 'wrap') wrap();
else if (mode === 'queue') queueMode();
else if (process.argv[process.argv.indexOf('--input-format') + 1] !== 'stream-json') void answerOnce();
else {
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
      const written = await floodStderr(Number(process.env.FAKE_STDERR_BYTES ?? 1024 * 1024));
      out({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'after the flood' }] } });
      result(uuid, `flooded ${written} bytes`);
      return;
    }
    if (mode === 'malformed') {
      for (const l of MALFORMED) process.stdout.write(l + '\n');
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
    if (line.includes('[[late-429]]')) {
      // A rate limit that lands after an interrupt was asked for (the CLI ignores control requests here).
      setTimeout(
        () =>
          out({
            type: 'result',
            subtype: 'success',
            is_error: true,
            api_error_status: 429,
            result: 'API Error: Request rejected (429) · fake',
            session_id: sid,
            num_turns: 1,
            duration_ms: 5,
            terminal_reason: 'api_error',
            user_message_uuids: [uuid],
          }),
        Number(process.env.FAKE_DELAY_MS ?? 1000),
      );
      return;
    }
    out({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'echo' }] } });
    result(uuid, 'echo');
  });
  rl.on('close', () => process.exit(0));
}
