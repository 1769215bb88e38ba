/**
 * Markdown to WhatsApp formatting: *bold*, _italic_, ~strike~, ``` blocks without a language tag,
 * `inline code`, "> " quotes. WhatsApp has no link syntax, so links become "text (url)".
 * Source of truth: https://faq.whatsapp.com/539178204879377 (Formatting your messages)
 */
import { renderSegments, type Segment } from './segments.js';
import { starEmphasis, starProse } from './stars.js';

/** One segment; lineStart: it begins a line (only then may its first line be a quote, heading or bullet). */
function whatsAppSegment(s: Segment, lineStart: boolean): string {
  switch (s.kind) {
    case 'fence':
      return '```\n' + s.code + '\n```';
    case 'code':
      return '`' + s.code + '`';
    case 'link':
      return s.text === s.url ? s.url : `${starEmphasis(s.text)} (${s.url})`;
    case 'url':
      return s.url;
    case 'text':
      return starProse(s.text, lineStart, starEmphasis);
  }
}

export function toWhatsApp(md: string): string {
  return renderSegments(md, whatsAppSegment);
}
