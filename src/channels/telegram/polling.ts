/**
 * Long polling with the commit-before-ack rule: an update is handed to grammY's middleware (which
 * awaits sink.accept) and only then does the offset move past it, so Telegram redelivers anything
 * Rudder had not committed. grammY's bot.start() advances its offset before handling, which is
 * why this loop drives bot.api.getUpdates and bot.handleUpdate itself (the seam @grammyjs/runner uses).
 */
import type { Bot } from 'grammy';
import { GrammyError } from 'grammy';
import type { Update } from 'grammy/types';
import type { Logger } from '../../ops/logger.js';
import { sleep } from '../common/retry.js';
import { classify, describe } from './errors.js';

/** grammY types its signal with the abort-controller shim; the native one works the same at runtime. */
export function grammySignal(signal: AbortSignal): Parameters<Bot['init']>[0] {
  return signal as unknown as Parameters<Bot['init']>[0];
}

/** Messages, their edits, and presses of the buttons under Rudder's own messages. */
export const ALLOWED_UPDATES = ['message', 'edited_message', 'callback_query'] as const;

export interface PollOptions {
  bot: Bot;
  signal: AbortSignal;
  timeoutSeconds: number;
  logger: Logger;
  token: string;
  onState(state: 'connected' | 'error', detail?: string): void;
}

/** Handles one update until it succeeds or the channel stops; a failed accept is tried again. */
async function handleUntilDone(u: Update, o: PollOptions): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await o.bot.handleUpdate(u);
      return true;
    } catch (err) {
      if (o.signal.aborted) return false;
      const cause = err instanceof Error && 'error' in err ? (err as { error: unknown }).error : err;
      o.logger.error(
        { updateId: u.update_id, attempt, err: describe(cause, o.token) },
        'telegram update not committed; retrying before moving on',
      );
      o.onState('error', 'an incoming message could not be committed; retrying');
      await sleep(Math.min(200 * 2 ** attempt, 30_000), o.signal).catch(() => undefined);
      if (o.signal.aborted) return false;
    }
  }
}

/** Polls until the signal aborts. Resolves with the next offset to confirm. */
export async function poll(o: PollOptions): Promise<number> {
  let offset = 0;
  let allowed: readonly string[] | undefined = ALLOWED_UPDATES;
  let failures = 0;
  while (!o.signal.aborted) {
    let updates: Update[];
    try {
      updates = await o.bot.api.getUpdates(
        { offset, timeout: o.timeoutSeconds, allowed_updates: allowed as never },
        grammySignal(o.signal),
      );
      failures = 0;
      // Telegram remembers allowed_updates; sending it once is enough.
      allowed = undefined;
      o.onState('connected');
    } catch (err) {
      if (o.signal.aborted) break;
      failures++;
      const v = classify(err);
      const conflict = err instanceof GrammyError && err.error_code === 409;
      const detail = conflict ? 'another process is polling this bot token (409 Conflict)' : describe(err, o.token);
      o.onState('error', detail);
      o.logger.warn({ err: detail, failures }, 'telegram getUpdates failed');
      const wait = v.kind === 'rate-limited' ? v.retryAfterMs : Math.min(1000 * 2 ** Math.min(failures, 5), 30_000);
      await sleep(wait, o.signal).catch(() => undefined);
      continue;
    }
    // Updates are handled one at a time, in order (!): the offset is the commit point.
    for (const u of updates) {
      if (!(await handleUntilDone(u, o))) return offset;
      offset = u.update_id + 1;
    }
  }
  return offset;
}
