/**
 * `rudder send <conversation> "text"`: sends through the web API and prints the reply stream.
 * It ends at the first of: a reply or notice that answers the message (exit 0); an `error` event
 * for it, a refusal, or a stop (exit 1); the end of the event stream (exit 1); the timeout (exit 3).
 * A conversation id nobody has used is refused unless --new says to start one: a typo must not
 * quietly open a conversation (and an agent process) of its own. --project moves it to a project
 * first, with /project as the page's ⋯ menu does.
 */
import { type Command, InvalidArgumentError } from 'commander';
import type { ProjectList } from '../http/wire.js';
import { ApiError, call, type Endpoint, endpoint, readEvents, type SseEvent } from './client.js';

export interface SendOptions {
  json?: boolean;
  timeout: number;
  /** Start the conversation when it does not exist yet. */
  new?: boolean;
  /** The project the conversation works in (sent as /project first). */
  project?: string;
}

/** What happened to the message, in words (the POST's disposition). */
const SAID: Record<string, string> = {
  turn: 'the agent started on it',
  steered: 'handed to the running turn',
  queued: 'queued',
  merged: 'merged with the messages waiting',
  command: 'a command: the gateway answers it',
  refused: 'refused',
  duplicate: 'already sent (a duplicate), not sent again',
};

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
    .option('--project <name>', 'work in this project (sent as /project <name> first, as the page does)')
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
  rudder send --new --project api api-1 "add a health route"
  rudder send work "now fix the first one"`,
    )
    .action(async (conversation: string, words: string[], opts: SendOptions) => {
      process.exitCode = await send(conversation, words.join(' '), opts);
    });
}

/** Whether the web conversation exists (a bad id is left for the message POST to refuse with its reason). */
async function exists(ep: Endpoint, conv: string): Promise<boolean> {
  try {
    await call(ep, 'GET', `/api/conversations/${conv}`);
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === 'NOT_FOUND') return false;
    if (err instanceof ApiError && err.status === 400) return true;
    throw err;
  }
}

/**
 * Moves the conversation to the project (/project, sent as the page sends it) and waits until it is there; an unknown
 * project is a usage error that lists the projects. Returns an exit code when it cannot go on.
 */
async function moveTo(ep: Endpoint, conv: string, project: string): Promise<number | undefined> {
  const names = (await call<ProjectList>(ep, 'GET', '/api/projects')).projects.map((p) => p.name);
  if (!names.includes(project)) {
    process.stderr.write(`rudder send: there is no project "${project}". Projects: ${names.join(', ')}.\n`);
    return 2;
  }
  await call(ep, 'POST', `/api/conversations/${conv}/messages`, { text: `/project ${project}` });
  for (let i = 0; i < 100; i++) {
    const item = await call<{ project?: string }>(ep, 'GET', `/api/conversations/${conv}`).catch(() => undefined);
    if (item?.project === project) return undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stderr.write(`rudder send: the conversation did not move to "${project}"; the text was not sent.\n`);
  return 1;
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
  if (opts.project) {
    const stop = await moveTo(ep, conv, opts.project);
    if (stop !== undefined) return stop;
  }
  const watch = new ReplyWatch(opts.json ?? false);
  const timer = setTimeout(() => watch.timedOut(), opts.timeout * 1000);
  try {
    const reading = watch.read(ep, conv);
    // The stream is open before the message is posted, so no event of it is missed.
    await Promise.race([watch.ready, reading]);
    watch.throwIfFailed();
    if (watch.code !== undefined) return watch.code;
    const r = await call<Accepted>(ep, 'POST', `/api/conversations/${conv}/messages`, { text });
    watch.accepted(r);
    await reading;
    watch.throwIfFailed();
    return watch.code ?? 1;
  } finally {
    clearTimeout(timer);
    watch.abort();
  }
}

interface Accepted {
  messageId: string;
  disposition: string;
  reason?: string;
}

const out = (line: string) => void process.stdout.write(line);
const err = (line: string) => void process.stderr.write(line);

/** The event stream of one sent message: what each event prints, and the exit code the first final one sets. */
class ReplyWatch {
  /** The exit code, once an event, the stream's end or the timeout decided it. */
  code: number | undefined;
  readonly ready: Promise<void>;
  private connected!: () => void;
  private readonly abortion = new AbortController();
  private messageId: string | undefined;
  /** Events that came before the message's id was known: handled once it is. */
  private readonly early: SseEvent[] = [];
  private streamed = false;
  /** A text block or a tool call ended what was streamed: the next text starts after a blank line. */
  private apart = false;
  private failure: Error | undefined;

  constructor(private readonly json: boolean) {
    this.ready = new Promise<void>((r) => (this.connected = r));
  }

  /** Reads the conversation's events until the code is decided (the stream is aborted then) or the stream ends. */
  read(ep: Endpoint, conv: string): Promise<void> {
    return readEvents(
      ep,
      `/api/conversations/${conv}/events`,
      (e) => {
        if (e.event === 'status' && e.data.state === 'connected') this.connected();
        this.handle(e);
      },
      this.abortion.signal,
    ).then(
      () => {
        if (this.code === undefined) err('the gateway closed the event stream (did it stop?); the reply stays owed.\n');
        this.end(1);
      },
      (e: Error) => {
        if (e.name === 'AbortError') return;
        this.failure = e;
        this.end(1);
      },
    );
  }

  accepted(r: Accepted): void {
    this.messageId = r.messageId;
    if (this.json) out(`${JSON.stringify({ event: 'accepted', ...r })}\n`);
    else err(`sent ${r.messageId}: ${SAID[r.disposition] ?? r.disposition}${r.reason ? ` (${r.reason})` : ''}\n`);
    if (r.disposition === 'refused') this.end(1);
    if (r.disposition === 'duplicate') this.end(0);
    for (const e of this.early.splice(0)) this.handle(e);
  }

  timedOut(): void {
    if (this.code === undefined) err('timed out waiting for the reply; it stays owed and the web page will show it.\n');
    this.end(3);
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  abort(): void {
    this.abortion.abort();
  }

  private end(code: number): void {
    this.code ??= code;
    this.abortion.abort();
  }

  private mine(e: SseEvent): boolean {
    const ids = Array.isArray(e.data.messageIds) ? (e.data.messageIds as string[]) : [];
    return e.data.messageId === this.messageId || ids.includes(this.messageId!);
  }

  private handle(e: SseEvent): void {
    if (this.code !== undefined) return;
    if (!this.messageId) return void this.early.push(e);
    const mine = this.mine(e);
    if (this.json && (mine || e.event === 'text')) out(`${JSON.stringify({ event: e.event, ...e.data })}\n`);
    if (e.event === 'ack' && mine) this.ack(e);
    if (e.event === 'step' && mine && this.streamed) this.apart = true;
    if (e.event === 'text' && e.data.messageId === this.messageId && !this.json) {
      out(`${this.apart ? '\n\n' : ''}${e.data.delta}`);
      this.streamed = true;
      this.apart = false;
    }
    if (e.event === 'permission' && mine && !e.data.resolved && !this.json)
      err(`🔐 permission requested for ${e.data.toolName} (request ${e.data.requestId}); answer it on the web page\n`);
    if (e.event === 'reply' && mine && (e.data.kind === 'reply' || e.data.kind === 'notice')) {
      if (!this.json) {
        out(this.streamed ? '\n' : `${e.data.text}\n`);
        err(`answered ${this.messageId}\n`);
      }
      this.end(0);
    }
    if (e.event === 'error' && mine) this.error(e);
  }

  private ack(e: SseEvent): void {
    if (!this.json) err(`${e.data.emoji} ${e.data.kind}${e.data.note ? `: ${e.data.note}` : ''}\n`);
    if (e.data.kind !== 'stopped') return;
    if (!this.json) err('the message was stopped before it was answered.\n');
    this.end(1);
  }

  private error(e: SseEvent): void {
    if (!this.json)
      err(
        `error ${e.data.code}: ${e.data.message}\nThe message stays in the store; the web page and rudder ` +
          `status show what happens next.\n`,
      );
    this.end(1);
  }
}
