/**
 * Markdown to WhatsApp formatting: *bold*, _italic_, ~strike~, ``` blocks without a language tag,
 * `inline code`, "> " quotes. WhatsApp has no link syntax, so links become "text (url)".
 * Source of truth: https://faq.whatsapp.com/539178204879377 (Formatting your messages)
 */
import { emphasis, lineStarts, proseLines, type Segment, segment, unbold } from './segments.js';

function inline(text: string): string {
  return emphasis(text, {
    bold: (s) => `*${s}*`,
    italic: (s) => `_${s}_`,
    strike: (s) => `~${s}~`,
  });
}

/** One segment; lineStart: it begins a line (only then may its first line be a quote, heading or bullet). */
function whatsAppSegment(s: Segment, lineStart: boolean): string {
  switch (s.kind) {
    case 'fence':
      return '```\n' + s.code + '\n```';
    case 'code':
      return '`' + s.code + '`';
    case 'link':
      return s.text === s.url ? s.url : `${inline(s.text)} (${s.url})`;
    case 'url':
      return s.url;
    case 'text':
      return proseLines(s.text, lineStart, {
        heading: (t) => `*${inline(unbold(t))}*`,
        quote: (t) => `> ${inline(t)}`,
        bullet: (indent, t) => `${indent}• ${inline(t)}`,
        plain: inline,
      });
  }
}

export function toWhatsApp(md: string): string {
  const segs = segment(md);
  const starts = lineStarts(segs);
  return segs.map((s, i) => whatsAppSegment(s, starts[i] ?? true)).join('');
}
