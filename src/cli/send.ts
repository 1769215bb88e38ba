/**
 * `rudder send <conversation> "text"`: sends through the web API and prints the reply stream.
 * It ends at the first of: a reply or notice that answers the message (exit 0); an `error` event
 * for it, a refusal, or a stop (exit 1); the end of the event stream (exit 1); the timeout (exit 3).
 * A conversation id nobody has used is refused unless --new says to start one: a typo must not
 * quietly open a conversation (and an agent process) of its own.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { ApiError, call, endpoint, readEvents, type SseEvent } from './client.js';

export interface SendOptions {
  json?: boolean;
  timeout: number;
  /** Start the conversation when it does not exist yet. */
  new?: boolean;
}

export function register(program: Command): void {
  program
    .command('send')
    .description('send a message to a conversation through the web API and print the reply stream')
    .argument('<conversation>', 'the web conversation id: 1-64 letters, digits, ".", "_" or "-"')
    .argument(
      '<text...>',
      'the message (several words are joined with spaces; put -- before text that starts with "-")',
    )
    .option('--new', 'start the conversation when no conversation has this id yet')
    .option('--json', 'print the raw events as JSON lines on stdout')
    .option('--timeout <seconds>', 'how long to wait for the reply', seconds, 600)
    .addHelpText(
      'after',
      `
The acknowledgements go to stderr, the reply to stdout. An id no conversation has yet is
refused (exit 1) unless --new is given. Exit codes: 0 answered; 1 an error event for the
message, a refusal, a stop or an unknown conversation (the message stays in the store; the
web page shows what happens next); 2 bad usage; 3 no reply within --timeout (the reply stays
owed).
The gateway is found through RUDDER_URL and RUDDER_TOKEN, else the config's web address and
the token in the data dir.

Examples:
  rudder send --new work "run the tests and tell me what fails"
  rudder send work "now fix the first one"`,
    )
    .action(async (conversation: string, words: string[], opts: SendOptions) => {
      process.exitCode = await send(conversation, words.join(' '), opts);
    });
}

/** Whether the web conversation exists (a bad id is left for the message POST to refuse with its reason). */
async function exists(ep: ReturnType<typeof endpoint>, conv: string): Promise<boolean> {
  try {
    await call(ep, 'GET', `/api/conversations/${conv}`);
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === 'NOT_FOUND') return false;
    if (err instanceof ApiError && err.status === 400) return true;
    throw err;
  }
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds above 0');
  return n;
}

export async function send(conversation: string, text: string, opts: SendOptions): Promise<number> {
  if (!text.trim()) {
    process.stderr.write('rudder send: the text is empty.\n');
    return 2;
  }
  const ep = endpoint();
  const conv = encodeURIComponent(conversation);
  if (!opts.new && !(await exists(ep, conv))) {
    process.stderr.write(
      `rudder send: there is no conversation "${conversation}". To start it, run: rudder send --new ` +
        `${conversation} "…" (GET /api/conversations, or the web page, lists those there are).\n`,
    );
    return 1;
  }
  const abort = new AbortController();
  let messageId: string | undefined;
  let streamed = false;
  let code: number | undefined;
  let failure: Error | undefined;
  const early: SseEvent[] = [];
  let connected!: () => void;
  const ready = new Promise<void>((r) => (connected = r));
  const out = (line: string) => void process.stdout.write(line);
  const err = (line: string) => void process.stderr.write(line);
  const end = (c: number) => {
    code ??= c;
    abort.abort();
  };

  const mine = (e: SseEvent) => {
    const ids = Array.isArray(e.data.messageIds) ? (e.data.messageIds as string[]) : [];
    return e.data.messageId === messageId || ids.includes(messageId!);
  };
  const handle = (e: SseEvent) => {
    if (code !== undefined) return;
    if (!messageId) return void early.push(e);
    if (opts.json && (mine(e) || e.event === 'text')) out(`${JSON.stringify({ event: e.event, ...e.data })}\n`);
    if (e.event === 'ack' && mine(e)) {
      if (!opts.json) err(`${e.data.emoji} ${e.data.kind}${e.data.note ? `: ${e.data.note}` : ''}\n`);
      if (e.data.kind === 'stopped') {
        if (!opts.json) err('the message was stopped before it was answered.\n');
        end(1);
      }
    }
    if (e.event === 'text' && e.data.messageId === messageId && !opts.json) {
      out(String(e.data.delta));
      streamed = true;
    }
    if (e.event === 'permission' && mine(e) && !e.data.resolved && !opts.json)
      err(`🔐 permission requested for ${e.data.toolName} (request ${e.data.requestId}); answer it on the web page\n`);
    if (e.event === 'reply' && mine(e) && (e.data.kind === 'reply' || e.data.kind === 'notice')) {
      if (!opts.json) out(streamed ? '\n' : `${e.data.text}\n`);
      end(0);
    }
    if (e.event === 'error' && mine(e)) {
      if (!opts.json)
        err(
          `error ${e.data.code}: ${e.data.message}\nThe message stays in the store; the web page and rudder ` +
            `status show what happens next.\n`,
        );
      end(1);
    }
  };

  const timer = setTimeout(() => {
    if (code === undefined) err('timed out waiting for the reply; it stays owed and the web page will show it.\n');
    end(3);
  }, opts.timeout * 1000);
  try {
    const reading = readEvents(
      ep,
      `/api/conversations/${conv}/events`,
      (e) => {
        if (e.event === 'status' && e.data.state === 'connected') connected();
        handle(e);
      },
      abort.signal,
    ).then(
      () => {
        if (code === undefined) err('the gateway closed the event stream (did it stop?); the reply stays owed.\n');
        end(1);
      },
      (e: Error) => {
        if (e.name === 'AbortError') return;
        failure = e;
        end(1);
      },
    );
    // The stream is open before the message is posted, so no event of it is missed.
    await Promise.race([ready, reading]);
    if (failure) throw failure;
    if (code !== undefined) return code;
    const r = await call<{ messageId: string; disposition: string; reason?: string }>(
      ep,
      'POST',
      `/api/conversations/${conv}/messages`,
      { text },
    );
    messageId = r.messageId;
    if (opts.json) out(`${JSON.stringify({ event: 'accepted', ...r })}\n`);
    else err(`sent ${r.messageId}: ${r.disposition}${r.reason ? ` (${r.reason})` : ''}\n`);
    if (r.disposition === 'refused') end(1);
    if (r.disposition === 'duplicate') end(0);
    for (const e of early.splice(0)) handle(e);
    await reading;
    if (failure) throw failure;
    return code ?? 1;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
