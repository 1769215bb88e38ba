import { describe, expect, it, vi } from 'vitest';
import { ackText, clip } from '../../../src/channels/common/ack-text.js';
import { attachmentPath, safeSegment } from '../../../src/channels/common/attachments.js';
import { KeyedSerial } from '../../../src/channels/common/ordered.js';
import { PartProgress } from '../../../src/channels/common/part-progress.js';
import { redact, type Verdict, withRetry } from '../../../src/channels/common/retry.js';
import { TypingKeeper } from '../../../src/channels/common/typing.js';
import { isRudderError } from '../../../src/errors.js';

const opts = (verdict: Verdict) => ({
  channel: 'test',
  what: 'call',
  classify: () => verdict,
  describe: (e: unknown) => String((e as Error).message),
  backoffMs: 1,
});

describe('withRetry', () => {
  it('throws CHANNEL_RATE_LIMITED with retryAfterMs when the platform wait is longer than allowed', async () => {
    let calls = 0;
    const err = await withRetry(
      async () => {
        calls++;
        throw new Error('429');
      },
      { ...opts({ kind: 'rate-limited', retryAfterMs: 120_000 }), maxWaitMs: 60_000 },
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(isRudderError(err, 'CHANNEL_RATE_LIMITED')).toBe(true);
    expect((err as { context: { retryAfterMs: number } }).context.retryAfterMs).toBe(120_000);
  });

  it('gives up on rate limits after the bounded number of attempts', async () => {
    let calls = 0;
    const err = await withRetry(
      async () => {
        calls++;
        throw new Error('429');
      },
      { ...opts({ kind: 'rate-limited', retryAfterMs: 5 }), attempts: 3 },
    ).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect(isRudderError(err, 'CHANNEL_RATE_LIMITED')).toBe(true);
  });

  it('does not retry a permanent refusal, and marks transient exhaustion as not permanent', async () => {
    let calls = 0;
    const permanent = await withRetry(
      async () => {
        calls++;
        throw new Error('403 forbidden');
      },
      opts({ kind: 'permanent' }),
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(isRudderError(permanent, 'CHANNEL_SEND_FAILED') && permanent.context.permanent).toBe(true);
    const transient = await withRetry(
      async () => {
        throw new Error('ECONNRESET');
      },
      { ...opts({ kind: 'transient' }), attempts: 2 },
    ).catch((e: unknown) => e);
    expect(isRudderError(transient, 'CHANNEL_SEND_FAILED') && transient.context.permanent).toBe(false);
  });

  it('returns the result once a retry succeeds', async () => {
    let calls = 0;
    const r = await withRetry(
      async () => {
        if (++calls < 3) throw new Error('flaky');
        return 'ok';
      },
      opts({ kind: 'transient' }),
    );
    expect(r).toBe('ok');
    expect(calls).toBe(3);
  });

  it('redacts secrets', () => {
    expect(redact('GET https://api/bot123:SECRETTOKEN/x failed', ['123:SECRETTOKEN'])).toBe(
      'GET https://api/bot***/x failed',
    );
  });
});

describe('ordering and delivery progress', () => {
  it('runs tasks for one key strictly in order, even when an earlier one fails', async () => {
    const serial = new KeyedSerial();
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const a = serial.run('k', async () => {
      await gate;
      seen.push('a');
      throw new Error('a failed');
    });
    const b = serial.run('k', async () => {
      seen.push('b');
    });
    const other = serial.run('other', async () => {
      seen.push('other');
    });
    await other;
    expect(seen).toEqual(['other']);
    release();
    await expect(a).rejects.toThrow('a failed');
    await b;
    expect(seen).toEqual(['other', 'a', 'b']);
  });

  it('resumes a reply at the first part the platform did not confirm, and never resends a delivered one', async () => {
    const progress = new PartProgress();
    const sent: string[] = [];
    let failAt = 1;
    const send = async (p: string, i: number) => {
      if (i === failAt) throw new Error('boom');
      sent.push(p);
    };
    await expect(progress.deliver('o1', ['p0', 'p1', 'p2'], send)).rejects.toThrow('boom');
    failAt = -1;
    await progress.deliver('o1', ['p0', 'p1', 'p2'], send);
    await progress.deliver('o1', ['p0', 'p1', 'p2'], send);
    expect(sent).toEqual(['p0', 'p1', 'p2']);
  });
});

describe('acknowledgement texts and attachment paths', () => {
  it('words the fallbacks the same everywhere', () => {
    expect(ackText('steered', 'short')).toBe('➡️ got it: short');
    expect(ackText('queued', 'x'.repeat(50))).toBe(`⏳ queued: ${'x'.repeat(40)}…`);
    expect(ackText('stopped')).toBe('⏹ stopped');
    expect(ackText('received')).toBeUndefined();
    expect(clip('a\n\n b   c')).toBe('a b c');
  });

  it('keeps attachment paths inside the data dir whatever the platform names are', () => {
    const p = attachmentPath({
      dataDir: '/data',
      channel: 'telegram',
      conversationKey: '../../etc',
      messageId: '1:2',
      name: '../../passwd',
    });
    expect(p.startsWith('/data/attachments/telegram/')).toBe(true);
    expect(p).not.toContain('..');
    expect(safeSegment('')).toBe('file');
  });
});

describe('typing keeper', () => {
  it('survives a send that throws at once (a channel that lost its connection), and keeps trying', async () => {
    let calls = 0;
    const keeper = new TypingKeeper({
      intervalMs: 10,
      send: () => {
        calls++;
        throw new Error('not connected');
      },
      clear: () => {
        throw new Error('not connected');
      },
    });
    keeper.set({ conversationKey: 'c' }, true);
    // Waited for, not timed: a loaded machine may fire the 10 ms timer far later.
    await vi.waitFor(() => expect(calls).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
    keeper.set({ conversationKey: 'c' }, false);
    const atOff = calls;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBeLessThanOrEqual(atOff + 1);
  });
});
