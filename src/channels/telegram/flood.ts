/**
 * Telegram's flood control per chat: a 429 with `retry_after` from any call to a chat holds every
 * later call to that chat until it passed (a card edit's 429 holds the reply and the typing
 * indicator too, and the other way round). One grammY API transformer sees every call: a call to a
 * held chat waits out the hold, except the typing indicator, which is skipped (it would be stale
 * by then, and the next tick sends it again).
 */
import type { Transformer } from 'grammy';
import { sleep } from '../common/retry.js';

export class FloodHold {
  /** Epoch ms until which no call goes to the chat, by chat id. */
  private readonly until = new Map<string, number>();

  /** When the chat is free again (0: it is). */
  heldUntil(chatId: string): number {
    const t = this.until.get(chatId) ?? 0;
    if (t > Date.now()) return t;
    this.until.delete(chatId);
    return 0;
  }

  readonly transformer: Transformer = async (prev, method, payload, signal) => {
    const chat = (payload as { chat_id?: unknown } | undefined)?.chat_id;
    const chatId = typeof chat === 'number' || typeof chat === 'string' ? String(chat) : undefined;
    if (chatId !== undefined) {
      const wait = this.heldUntil(chatId) - Date.now();
      if (wait > 0 && method === 'sendChatAction') return { ok: true, result: true } as never;
      if (wait > 0) await sleep(wait, signal as globalThis.AbortSignal | undefined);
    }
    const res = await prev(method, payload, signal);
    const retryAfter = !res.ok && res.error_code === 429 ? res.parameters?.retry_after : undefined;
    if (chatId !== undefined && typeof retryAfter === 'number') {
      const t = Date.now() + retryAfter * 1000;
      this.until.set(chatId, Math.max(t, this.until.get(chatId) ?? 0));
    }
    return res;
  };
}
