/**
 * Markdown to Slack mrkdwn: *bold*, _italic_, ~strike~, <url|text> links, ``` blocks without a
 * language tag, and &, <, > escaped everywhere else.
 * Source of truth: https://api.slack.com/reference/surfaces/formatting
 */
import { emphasis, lineStarts, proseLines, segment, unbold } from './segments.js';

function escapeSlack(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function inline(text: string): string {
  return emphasis(escapeSlack(text), {
    bold: (s) => `*${s}*`,
    italic: (s) => `_${s}_`,
    strike: (s) => `~${s}~`,
  });
}

export function toSlackMrkdwn(md: string): string {
  const segs = segment(md);
  const starts = lineStarts(segs);
  return segs
    .map((s, i) => {
      switch (s.kind) {
        case 'fence':
          return '```\n' + escapeSlack(s.code) + '\n```';
        case 'code':
          return '`' + escapeSlack(s.code) + '`';
        case 'link':
          return `<${s.url.replace(/[|>]/g, encodeURIComponent)}|${escapeSlack(s.text).replace(/\|/g, '¦')}>`;
        case 'url':
          return `<${s.url.replace(/[|>]/g, encodeURIComponent)}>`;
        case 'text':
          return proseLines(s.text, starts[i] ?? true, {
            heading: (t) => `*${inline(unbold(t))}*`,
            // The quote marker must stay a literal ">" for Slack to render a quote.
            quote: (t) => `> ${inline(t)}`,
            bullet: (indent, t) => `${indent}• ${inline(t)}`,
            plain: inline,
          });
      }
    })
    .join('');
}
