/**
 * Acknowledgements mean the same on every platform. Reactions are used where a platform has them;
 * these texts are sent where it does not, or where the reaction call fails.
 */
import type { AckKind } from '../channel.js';

/** Unicode emoji per acknowledgement (Discord, WhatsApp; Slack uses names, see slack/). */
export const ACK_EMOJI: Record<AckKind, string> = {
  received: '👀',
  steered: '➡️',
  queued: '⏳',
  stopped: '⏹️',
};

/** The first n characters (code points) of text on one line, with an ellipsis when cut. */
export function clip(text: string, n = 40): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= n ? flat : chars.slice(0, n).join('') + '…';
}

/** The fallback text for an acknowledgement; undefined where a silent failure is fine (received). */
export function ackText(kind: AckKind, note?: string): string | undefined {
  switch (kind) {
    case 'received':
      return undefined;
    case 'steered':
      return note ? `➡️ got it: ${clip(note)}` : '➡️ got it';
    case 'queued':
      return note ? `⏳ queued: ${clip(note)}` : '⏳ queued';
    case 'stopped':
      return '⏹ stopped';
  }
}
