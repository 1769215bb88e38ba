// A tiny ACP agent over stdio, built on the SDK's agent side, for what the real agents never do here:
// call fs/*, end a prompt with refusal or max_tokens, send a malformed update, offer no session/load.
// Directives in the prompt text:
//   [[read:PATH]]     fs/read_text_file PATH; replies "read: <content>" or "refused: <message>"
//   [[write:PATH:T]]  fs/write_text_file PATH with T; replies "wrote" or "refused: <message>"
//   [[stop:REASON]]   ends the prompt with that stop reason after the reply
//   [[ask]]           asks permission, waits, and replies with the outcome it got
//   [[bad]]           sends malformed session/update notifications before the reply
//   [[term:CMD]]      runs `sh -c CMD` in a client terminal; replies "term: <output> exit <code>", "refused: …",
//                     or "no terminal" when the client did not offer terminals
//   [[termat:DIR]]    the same with `pwd` in DIR
//   [[hang]]          never answers the prompt, and ignores session/cancel (an agent that does not stop)
// FAKE_ACP_LOG (a file) gets one JSON line per permission outcome. FAKE_ACP_AUTH set: every prompt answers
// auth_required (a login is needed). `--version` prints its version and exits, as the real agents' commands do.
import fs from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

if (process.argv.includes('--version')) {
  process.stdout.write('fake-acp-agent 0.0.0\n');
  process.exit(0);
}

let sessions = 0;
let clientCaps = {};
const log = (entry) =>
  process.env.FAKE_ACP_LOG && fs.appendFileSync(process.env.FAKE_ACP_LOG, `${JSON.stringify(entry)}\n`);

async function reply(client, sessionId, text) {
  await client.notify('session/update', {
    sessionId,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
  });
}

async function terminal(client, sessionId, [cmd, cwd]) {
  if (!clientCaps.terminal) return 'no terminal';
  try {
    const { terminalId } = await client.request('terminal/create', {
      sessionId,
      command: 'sh',
      args: ['-c', cmd],
      ...(cwd ? { cwd } : {}),
    });
    const exit = await client.request('terminal/wait_for_exit', { sessionId, terminalId });
    const { output } = await client.request('terminal/output', { sessionId, terminalId });
    await client.request('terminal/release', { sessionId, terminalId });
    return `term: ${output.trim()} exit ${exit.exitCode}`;
  } catch (err) {
    return `refused: ${err.message}`;
  }
}

async function prompt({ params, client }) {
  if (process.env.FAKE_ACP_AUTH) throw acp.RequestError.authRequired();
  const { sessionId } = params;
  const text = params.prompt.map((b) => b.text ?? '').join('\n');
  if (/\[\[hang\]\]/.test(text)) return new Promise(() => undefined);
  const out = [];
  const read = /\[\[read:([^\]]+)\]\]/.exec(text);
  if (read)
    try {
      const r = await client.request('fs/read_text_file', { sessionId, path: read[1] });
      out.push(`read: ${r.content}`);
    } catch (err) {
      out.push(`refused: ${err.message}`);
    }
  const write = /\[\[write:([^:\]]+):([^\]]*)\]\]/.exec(text);
  if (write)
    try {
      await client.request('fs/write_text_file', { sessionId, path: write[1], content: write[2] });
      out.push('wrote');
    } catch (err) {
      out.push(`refused: ${err.message}`);
    }
  const term = /\[\[term:([^\]]+)\]\]/.exec(text) ?? /\[\[termat:([^\]]+)\]\]/.exec(text);
  if (term) out.push(await terminal(client, sessionId, term[0].startsWith('[[termat') ? ['pwd', term[1]] : [term[1]]));
  if (/\[\[bad\]\]/.test(text)) {
    for (const update of [{ sessionUpdate: 'tool_call_update' }, { sessionUpdate: 'plan', entries: 'x' }, null])
      await client.notify('session/update', { sessionId, update });
  }
  if (/\[\[ask\]\]/.test(text)) {
    const r = await client.request('session/request_permission', {
      sessionId,
      toolCall: { toolCallId: 'ask-1', title: 'rm -rf build', kind: 'execute', status: 'pending' },
      options: [
        { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
        { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ],
    });
    log(r.outcome);
    if (r.outcome.outcome === 'cancelled') return { stopReason: 'cancelled' };
    out.push(`answered: ${r.outcome.optionId}`);
  }
  await reply(client, sessionId, out.join('\n') || 'ok');
  const stop = /\[\[stop:(\w+)\]\]/.exec(text);
  return { stopReason: stop ? stop[1] : 'end_turn' };
}

acp
  .agent({ name: 'fake-acp-agent' })
  .onRequest('initialize', ({ params }) => {
    clientCaps = params.clientCapabilities ?? {};
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false },
      agentInfo: { name: 'fake-acp-agent', version: '0.0.0' },
      authMethods: process.env.FAKE_ACP_AUTH ? [{ id: 'key', name: 'an API key' }] : [],
    };
  })
  .onRequest('session/new', () => ({ sessionId: `fake-${++sessions}` }))
  .onRequest('session/prompt', prompt)
  .onNotification('session/cancel', () => undefined)
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
