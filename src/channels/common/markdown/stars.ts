/**
 * What Slack's mrkdwn and WhatsApp write alike: *bold*, _italic_, ~strike~, a heading as a bold line,
 * "> " quotes and "•" bullets. Each escapes (or not) its own way before this.
 */
import { emphasis, proseLines, unbold } from './segments.js';

export function starEmphasis(text: string): string {
  return emphasis(text, {
    bold: (s) => `*${s}*`,
    italic: (s) => `_${s}_`,
    strike: (s) => `~${s}~`,
  });
}

/** One run of prose, line by line, its words through `inline`. */
export function starProse(text: string, lineStart: boolean, inline: (s: string) => string): string {
  return proseLines(text, lineStart, {
    heading: (t) => `*${inline(unbold(t))}*`,
    // The quote marker must stay a literal ">" for Slack to render a quote.
    quote: (t) => `> ${inline(t)}`,
    bullet: (indent, t) => `${indent}• ${inline(t)}`,
    plain: inline,
  });
}
