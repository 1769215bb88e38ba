/**
 * A second implementation of the adapter interface (src/channels/runtime/adapter.ts), for the runtime's
 * tests: a chat platform kept in memory. What a test scripts here (a connect that fails or hangs, a call
 * the platform refuses or rate-limits, a slow call) is the platform's behaviour; the runtime under test
 * is the real one.
 */
import type { AckKind, ChannelStatus, InboundMessage, InboundSink, MessageRef } from '../../src/channels/channel.js';
import { configError } from '../../src/channels/common/errors.js';
import { type Verdict, withRetry } from '../../src/channels/common/retry.js';
import type { ChannelAdapter, ChannelLink, ProbeResult, TypingCalls } from '../../src/channels/runtime/adapter.js';
import { ChannelRuntime } from '../../src/channels/runtime/runtime.js';
import { silentLogger } from '../../src/ops/logger.js';

export interface MemoCall {
  method: 'post' | 'react' | 'typing';
  chat: string;
  text: string;
  replyTo?: string;
  quiet?: boolean;
}

/** An error the platform answers with; its verdict is how the platform's errors classify. */
export class MemoError extends Error {
  constructor(
    message: string,
    readonly verdict: Verdict,
  ) {
    super(message);
  }
}

export class MemoPlatform {
  /** Every call the platform took, in the order it took them. */
  readonly calls: MemoCall[] = [];
  /** Client sessions open now: a connect opens one, a disconnect ends it. */
  sessions = 0;
  /** How the next connects reach the platform, before a session opens; past the end at once. */
  readonly reaches: Array<(signal: AbortSignal) => Promise<void>> = [];
  /** What the next connects do after the session opened, in order; past the end they succeed at once. */
  readonly connects: Array<(signal: AbortSignal) => Promise<void>> = [];
  /** Runs before a call is taken: throw to refuse it, await to make it slow. */
  before: (call: MemoCall) => Promise<void> | void = () => undefined;
  token: string | undefined = 'memo-token';
  private deliver?: (msg: InboundMessage) => Promise<void>;

  /** A message arrives, as the platform pushes it (not awaited by the platform). */
  push(msg: InboundMessage): Promise<void> {
    if (!this.deliver) throw new Error('no client is connected');
    return this.deliver(msg);
  }

  open(deliver: (msg: InboundMessage) => Promise<void>): MemoSession {
    this.sessions++;
    this.deliver = deliver;
    let open = true;
    return {
      call: async (c) => {
        if (!open) throw new MemoError('session closed', { kind: 'permanent' });
        await this.before(c);
        this.calls.push(c);
      },
      end: () => {
        if (open) this.sessions--;
        open = false;
        this.deliver = undefined;
      },
    };
  }

  posts(chat?: string): string[] {
    return this.calls.filter((c) => c.method === 'post' && (chat === undefined || c.chat === chat)).map((c) => c.text);
  }
}

interface MemoSession {
  call(c: MemoCall): Promise<void>;
  end(): void;
}

/** Parts are at most this long. */
export const MEMO_LIMIT = 10;

export class MemoAdapter implements ChannelAdapter {
  readonly capabilities = { textLimit: MEMO_LIMIT };
  readonly typing: TypingCalls;
  private session?: MemoSession;

  constructor(
    private readonly platform: MemoPlatform,
    private readonly link: ChannelLink,
    typingIntervalMs: number,
  ) {
    this.typing = {
      intervalMs: typingIntervalMs,
      ready: () => this.session !== undefined,
      send: (to) => this.client().call({ method: 'typing', chat: to.conversationKey, text: 'typing' }),
    };
  }

  private client(): MemoSession {
    if (!this.session) throw new MemoError('not started', { kind: 'transient' });
    return this.session;
  }

  async connect(sink: InboundSink, signal: AbortSignal): Promise<void> {
    if (!this.platform.token) throw configError('memo', 'token', 'Set channels.memo.token.');
    await this.platform.reaches.shift()?.(signal);
    this.session = this.platform.open(async (msg) => {
      await this.link.inbound(() => sink.accept(msg));
    });
    await this.platform.connects.shift()?.(signal);
    this.link.report('connected', 'memo bot');
  }

  async disconnect(): Promise<void> {
    this.session?.end();
    this.session = undefined;
  }

  render(markdown: string): string[] {
    const parts: string[] = [];
    for (let i = 0; i < markdown.length; i += MEMO_LIMIT) parts.push(markdown.slice(i, i + MEMO_LIMIT));
    return parts;
  }

  async sendPart(to: MessageRef, part: string, index: number, replyTo: string | undefined): Promise<void> {
    const call = { method: 'post' as const, chat: to.conversationKey, text: part, replyTo, quiet: index > 0 };
    await withRetry(() => this.client().call(call), this.link.retry('post'));
  }

  async react(to: MessageRef, kind: AckKind): Promise<boolean> {
    if (!to.platformMessageId) return false;
    await this.client().call({ method: 'react', chat: to.conversationKey, text: kind });
    return true;
  }

  async sendAck(to: MessageRef, text: string): Promise<void> {
    const call = { method: 'post' as const, chat: to.conversationKey, text, quiet: true };
    await withRetry(() => this.client().call(call), this.link.retry('post'));
  }

  async probe(status: ChannelStatus): Promise<ProbeResult> {
    if (!this.platform.token) throw configError('memo', 'token', 'Set channels.memo.token.');
    return { ok: status.state === 'connected', detail: `memo is ${status.state}` };
  }

  classify(err: unknown): Verdict {
    return err instanceof MemoError ? err.verdict : { kind: 'transient' };
  }

  describe(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The runtime with the memo adapter, as a platform's channel file builds it. */
export function memoChannel(platform: MemoPlatform, typingIntervalMs = 20): ChannelRuntime {
  return new ChannelRuntime({
    name: 'memo',
    logger: silentLogger(),
    adapter: (link) => new MemoAdapter(platform, link, typingIntervalMs),
  });
}
