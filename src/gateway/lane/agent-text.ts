/**
 * The text an agent receives for one inbound message: the message, with its quote, attachments and transcript as
 * context.
 */
import type { MessageRow } from '../../store/types.js';

export function composeAgentText(row: MessageRow): string {
  const parts: string[] = [];
  const q = row.extra.quoted;
  if (q?.text) parts.push(`[In reply to${q.author ? ` ${q.author}` : ''}: "${q.text.slice(0, 2000)}"]`);
  if (row.extra.transcript !== undefined) parts.push(`[Voice note, transcribed]: ${row.extra.transcript}`);
  if (row.text) parts.push(row.text);
  const files = row.extra.attachments ?? [];
  if (files.length)
    parts.push(
      `[Attached files]\n${files.map((a) => `- ${a.path} (${a.kind}${a.mime ? `, ${a.mime}` : ''})`).join('\n')}`,
    );
  return parts.join('\n\n');
}

/** Who sent it, as shown inside the external-content wrapper. */
export function sourceOf(row: MessageRow): string {
  return `${row.channel}:${row.senderId}${row.extra.senderName ? ` (${row.extra.senderName})` : ''}`;
}
