/**
 * The credential of a notification's button. The service worker cannot read the page's token
 * (localStorage is the page's), and a push must not carry it; instead each button carries a token
 * the gateway signed (HMAC-SHA256) for one thing: answer this request with this option, or stop
 * this turn, for this device's subscription, until it expires. The key lives in memory only: a
 * restart ends every open request and turn anyway, and with them what their tokens could do.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type ActionClaim =
  | { do: 'answer'; sub: string; conversationId: string; requestId: string; optionId: string; exp: number }
  | { do: 'stop'; sub: string; conversationId: string; turnId: string; exp: number };

/** A token is good for this long at most (a request waits for its turn's end, which can be hours). */
export const TOKEN_LIFE_MS = 24 * 3600_000;
const MAX_TOKEN_CHARS = 2048;

export class ActionTokens {
  private readonly key = randomBytes(32);

  sign(claim: ActionClaim): string {
    const body = Buffer.from(JSON.stringify(claim)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The claim, when the token is one this gateway signed and it has not expired; else undefined. */
  verify(token: string, now = Date.now()): ActionClaim | undefined {
    if (token.length > MAX_TOKEN_CHARS) return undefined;
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return undefined;
    const want = Buffer.from(this.mac(body));
    const got = Buffer.from(mac);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
    let claim: ActionClaim;
    try {
      claim = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ActionClaim;
    } catch {
      return undefined;
    }
    return typeof claim.exp === 'number' && claim.exp > now ? claim : undefined;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
