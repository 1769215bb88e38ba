/**
 * The channel runtime (src/channels/runtime/runtime.ts) driven through a second, in-memory
 * implementation of the adapter interface (memo-adapter.ts): start and stop, the state they leave,
 * retries of a failed start (gateway/channel-start.ts), sends in each chat's order, acks, typing,
 * the inbound queue, status and probe.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InboundMessage, InboundSink } from '../../../src/channels/channel.js';
import { sleep } from '../../../src/channels/common/retry.js';
import type { ChannelRuntime } from '../../../src/channels/runtime/runtime.js';
import { isRudderError } from '../../../src/errors.js';
import { ChannelStarter } from '../../../src/gateway/channel-start.js';
import { silentLogger } from '../../../src/ops/logger.js';
import { MemoError, MemoPlatform, memoChannel } from '../../support/memo-adapter.js';
import { recordingSink } from '../../support/recording-sink.js';

/** A promise the test settles. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

const msg = (id: string, chat = 'a'): InboundMessage => ({
  channel: 'memo',
  platformMessageId: id,
  conversationKey: chat,
  sender: { id: 'ann' },
  chatType: 'direct',
  text: `text ${id}`,
});

let channel: ChannelRuntime | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await channel?.stop();
  channel = undefined;
});

describe('start and stop', () => {
  it('is stopped until started, starting while it connects, connected once the adapter says so', async () => {
    const platform = new MemoPlatform();
    const connected = gate();
    platform.connects.push(() => connected.opened);
    channel = memoChannel(platform);
    expect(channel.status()).toEqual({ name: 'memo', state: 'stopped' });
    const started = channel.start(recordingSink());
    expect(channel.status().state).toBe('starting');
    connected.open();
    await started;
    expect(channel.status()).toEqual({ name: 'memo', state: 'connected', detail: 'memo bot' });
    await channel.stop();
    expect(channel.status()).toEqual({ name: 'memo', state: 'stopped' });
    expect(platform.sessions).toBe(0);
  });

  it('a failed start says why in the status, releases what the connect made, and rejects', async () => {
    const platform = new MemoPlatform();
    platform.connects.push(async () => {
      throw new MemoError('platform unreachable', { kind: 'transient' });
    });
    channel = memoChannel(platform);
    await expect(channel.start(recordingSink())).rejects.toThrow('platform unreachable');
    expect(channel.status()).toEqual({ name: 'memo', state: 'error', detail: 'platform unreachable' });
    expect(platform.sessions).toBe(0);

    platform.token = undefined;
    const err = await channel.start(recordingSink()).catch((e: unknown) => e);
    expect(isRudderError(err, 'CHANNEL_CONFIG') && err.context.key).toBe('channels.memo.token');
    expect(channel.status().state).toBe('error');
  });

  it('stopped while connecting: nothing the connect made outlives it, and the channel stays stopped', async () => {
    const platform = new MemoPlatform();
    const connected = gate();
    // The session opens after the platform answered, which is after stop() ran.
    platform.reaches.push(() => connected.opened);
    channel = memoChannel(platform);
    const started = channel.start(recordingSink());
    await channel.stop();
    expect(channel.status().state).toBe('stopped');
    // The platform answers only now; the connect goes on to its end and reports 'connected'.
    connected.open();
    await started;
    expect(platform.sessions).toBe(0);
    expect(channel.status().state).toBe('stopped');
  });

  it('a connect cut short by stop() is not reported as an error', async () => {
    const platform = new MemoPlatform();
    platform.connects.push(
      (signal) =>
        new Promise((_resolve, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    );
    channel = memoChannel(platform);
    const started = channel.start(recordingSink()).catch((e: unknown) => e);
    await channel.stop();
    expect(await started).toBeInstanceOf(Error);
    expect(channel.status().state).toBe('stopped');
    expect(platform.sessions).toBe(0);
  });
});

describe('a failed start is tried again (gateway/channel-start.ts)', () => {
  it('after 5 s, then 10 s, until it connects; the status says why meanwhile', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const platform = new MemoPlatform();
    const unreachable = async () => {
      throw new MemoError('platform unreachable', { kind: 'transient' });
    };
    platform.connects.push(unreachable, unreachable);
    channel = memoChannel(platform);
    const started: string[] = [];
    const starter = new ChannelStarter(recordingSink(), silentLogger(), (ch) => started.push(ch.name));
    const waiting = await starter.startAll([channel], 1_000);
    expect(waiting).toEqual([channel]);
    expect(starter.state('memo')).toMatchObject({ started: false, attempts: 1, error: 'platform unreachable' });
    expect(channel.status()).toMatchObject({ state: 'error', detail: 'platform unreachable' });

    await vi.advanceTimersByTimeAsync(4_999);
    expect(starter.state('memo')!.attempts).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(starter.state('memo')!.attempts).toBe(2);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(starter.state('memo')!.attempts).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(starter.state('memo')).toMatchObject({ started: true, attempts: 3 });
    expect(started).toEqual(['memo']);
    expect(channel.status().state).toBe('connected');
    expect(platform.sessions).toBe(1);
    starter.stop();
  });

  it('not when the token is missing: that does not fix itself', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const platform = new MemoPlatform();
    platform.token = undefined;
    channel = memoChannel(platform);
    const starter = new ChannelStarter(recordingSink(), silentLogger(), () => undefined);
    await starter.startAll([channel], 1_000);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(starter.state('memo')).toMatchObject({ started: false, attempts: 1 });
    expect(starter.state('memo')!.retryAt).toBeUndefined();
    starter.stop();
  });
});

describe('sends', () => {
  it("sends a reply's parts in order, replies one after another in a chat, other chats not held up", async () => {
    const platform = new MemoPlatform();
    channel = memoChannel(platform);
    await channel.start(recordingSink());
    const first = gate();
    platform.before = async (c) => {
      if (c.text === 'AAAAAAAAAA') await first.opened;
    };
    const a = channel.send({ outboxId: 'o1', text: 'A'.repeat(25), replyTo: 'q1' }, { conversationKey: 'a' });
    const b = channel.send({ outboxId: 'o2', text: 'B' }, { conversationKey: 'a' });
    await channel.send({ outboxId: 'o3', text: 'C' }, { conversationKey: 'b' });
    expect(platform.posts()).toEqual(['C']);
    first.open();
    await Promise.all([a, b]);
    expect(platform.posts('a')).toEqual(['AAAAAAAAAA', 'AAAAAAAAAA', 'AAAAA', 'B']);
    // The reply answers its message with its first part; the parts after it do not ring.
    expect(platform.calls.filter((c) => c.chat === 'a').map((c) => [c.replyTo, c.quiet])).toEqual([
      ['q1', false],
      [undefined, true],
      [undefined, true],
      [undefined, false],
    ]);
  });

  it('a rate-limited part waits as the platform asked, then goes again in its place', async () => {
    const platform = new MemoPlatform();
    channel = memoChannel(platform);
    await channel.start(recordingSink());
    let limited = 0;
    platform.before = (c) => {
      if (c.text === 'bbbbbbbbbb' && limited++ === 0)
        throw new MemoError('429', { kind: 'rate-limited', retryAfterMs: 30 });
    };
    await channel.send({ outboxId: 'o1', text: `${'a'.repeat(10)}${'b'.repeat(10)}c` }, { conversationKey: 'a' });
    expect(limited).toBe(2);
    expect(platform.posts()).toEqual(['aaaaaaaaaa', 'bbbbbbbbbb', 'c']);
  });

  it('a reply that failed halfway goes on from the first part not confirmed', async () => {
    const platform = new MemoPlatform();
    channel = memoChannel(platform);
    await channel.start(recordingSink());
    let refused = false;
    platform.before = (c) => {
      if (c.text === 'bbbbbbbbbb' && !refused) {
        refused = true;
        throw new MemoError('403', { kind: 'permanent' });
      }
    };
    const reply = { outboxId: 'o1', text: `${'a'.repeat(10)}${'b'.repeat(10)}c` };
    const err = await channel.send(reply, { conversationKey: 'a' }).catch((e: unknown) => e);
    expect(isRudderError(err, 'CHANNEL_SEND_FAILED') && err.context.permanent).toBe(true);
    await channel.send(reply, { conversationKey: 'a' });
    await channel.send(reply, { conversationKey: 'a' });
    expect(platform.posts()).toEqual(['aaaaaaaaaa', 'bbbbbbbbbb', 'c']);
  });

  it('stop() ends a wait for the platform at once, and a send after it fails', async () => {
    const platform = new MemoPlatform();
    channel = memoChannel(platform);
    await channel.start(recordingSink());
    let tries = 0;
    platform.before = () => {
      tries++;
      throw new MemoError('429', { kind: 'rate-limited', retryAfterMs: 50_000 });
    };
    const waiting = channel.send({ outboxId: 'o1', text: 'hello' }, { conversationKey: 'a' }).catch((e) => e);
    await vi.waitFor(() => expect(tries).toBe(1));
    await channel.stop();
    const outcome = await Promise.race([waiting, sleep(10_000).then(() => 'still waiting')]);
    expect(outcome).toBeInstanceOf(Error);
    platform.before = () => undefined;
    await expect(channel.send({ outboxId: 'o2', text: 'late' }, { conversationKey: 'a' })).rejects.toThrow();
    expect(platform.posts()).toEqual([]);
  });
});

describe('acknowledgements', () => {
  it('a reaction where there is one, else a quiet text in the chat order; none when only a reaction', async () => {
    const platform = new MemoPlatform();
    channel = memoChannel(platform);
    await channel.start(recordingSink());
    await channel.ack({ conversationKey: 'a', platformMessageId: 'm1' }, 'steered', 'fix the test');
    expect(platform.calls).toEqual([{ method: 'react', chat: 'a', text: 'steered' }]);

    platform.before = (c) => {
      if (c.method === 'react') throw new MemoError('no reactions here', { kind: 'permanent' });
    };
    await channel.ack({ conversationKey: 'a', platformMessageId: 'm2' }, 'queued', 'and the docs');
    await channel.ack({ conversationKey: 'a' }, 'steered');
    await channel.ack({ conversationKey: 'a', platformMessageId: 'm3' }, 'stopped', undefined, { reactionOnly: true });
    await channel.ack({ conversationKey: 'a', platformMessageId: 'm4' }, 'received');
    expect(platform.posts()).toEqual(['⏳ queued: and the docs', '➡️ got it']);
    expect(platform.calls.filter((c) => c.method === 'post').every((c) => c.quiet)).toBe(true);
  });
});

describe('typing', () => {
  it('is kept alive while on, only while the client is up, and ends with stop()', async () => {
    const platform = new MemoPlatform();
    channel = memoChannel(platform, 20);
    const typed = () => platform.calls.filter((c) => c.method === 'typing').length;
    channel.typing({ conversationKey: 'a' }, true);
    await sleep(60);
    expect(typed()).toBe(0);

    await channel.start(recordingSink());
    channel.typing({ conversationKey: 'a' }, true);
    await vi.waitFor(() => expect(typed()).toBeGreaterThanOrEqual(3));
    channel.typing({ conversationKey: 'a' }, false);
    const off = typed();
    await sleep(60);
    expect(typed()).toBe(off);

    channel.typing({ conversationKey: 'b' }, true);
    await channel.stop();
    const stopped = typed();
    await sleep(60);
    expect(typed()).toBe(stopped);
  });
});

describe('inbound', () => {
  it('commits one at a time in arrival order, and stop() waits for the commit under way', async () => {
    const platform = new MemoPlatform();
    const committed: string[] = [];
    const last = gate();
    const sink: InboundSink = {
      ...recordingSink(),
      async accept(m) {
        // Later messages commit faster: without the queue they would overtake.
        await sleep(m.platformMessageId === 'm5' ? 0 : 5 * (5 - Number(m.platformMessageId.slice(1))));
        if (m.platformMessageId === 'm5') await last.opened;
        committed.push(m.platformMessageId);
        return { messageId: m.platformMessageId, disposition: 'turn' };
      },
    };
    channel = memoChannel(platform);
    await channel.start(sink);
    for (const id of ['m1', 'm2', 'm3', 'm4', 'm5']) void platform.push(msg(id));
    await vi.waitFor(() => expect(committed).toEqual(['m1', 'm2', 'm3', 'm4']));
    let stopped = false;
    const stopping = channel.stop().then(() => (stopped = true));
    await sleep(50);
    expect(stopped).toBe(false);
    last.open();
    await stopping;
    expect(committed).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
  });
});

describe('status and probe', () => {
  it('status is a copy; probe sees the status now, and a missing token reads as not ok with its fix', async () => {
    const platform = new MemoPlatform();
    channel = memoChannel(platform);
    const status = channel.status();
    status.state = 'connected';
    expect(channel.status().state).toBe('stopped');
    expect(await channel.probe()).toEqual({ ok: false, detail: 'memo is stopped' });
    await channel.start(recordingSink());
    expect(await channel.probe()).toEqual({ ok: true, detail: 'memo is connected' });
    platform.token = undefined;
    const probed = await channel.probe();
    expect(probed.ok).toBe(false);
    expect(probed.detail).toContain('Set channels.memo.token.');
  });
});
