/**
 * Telegram's flood control per chat: a 429 with `retry_after` from any call to a chat holds every
 * later call to that chat until it passed (a card edit's 429 holds the reply and the typing
 * indicator too, and the other way round). One grammY API transformer sees every call: a call to a
 * held chat is answered here as Telegram would answer it, a 429 with the time left, without being
 * sent (so common/retry.ts waits it out or keeps the reply owed, as for Telegram's own); the typing
 * indicator is skipped instead (the next tick sends it again).
 */
import type { Transformer } from 'grammy';

export class FloodHold {
  /** Epoch ms until which no call goes to the chat, by chat id. */
  private readonly until = new Map<string, number>();

  /** Milliseconds left of the chat's hold (0: none). */
  private left(chatId: string): number {
    const ms = (this.until.get(chatId) ?? 0) - Date.now();
    if (ms <= 0) this.until.delete(chatId);
    return Math.max(0, ms);
  }

  readonly transformer: Transformer = async (prev, method, payload, signal) => {
    const chat = (payload as { chat_id?: unknown } | undefined)?.chat_id;
    const chatId = typeof chat === 'number' || typeof chat === 'string' ? String(chat) : undefined;
    const left = chatId === undefined ? 0 : this.left(chatId);
    if (left > 0 && method === 'sendChatAction') return { ok: true, result: true } as never;
    if (left > 0) {
      const s = Math.ceil(left / 1000);
      return {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${s} (this chat is held by an earlier 429)`,
        parameters: { retry_after: s },
      };
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
