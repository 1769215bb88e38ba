/**
 * Markdown to Slack mrkdwn: *bold*, _italic_, ~strike~, <url|text> links, ``` blocks without a
 * language tag, and &, <, > escaped everywhere else.
 * Source of truth: https://api.slack.com/reference/surfaces/formatting
 */
import { emphasis, lineStarts, proseLines, type Segment, segment, unbold } from './segments.js';

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

/** One segment; lineStart: it begins a line (only then may its first line be a quote, heading or bullet). */
function slackSegment(s: Segment, lineStart: boolean): string {
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
      return proseLines(s.text, lineStart, {
        heading: (t) => `*${inline(unbold(t))}*`,
        // The quote marker must stay a literal ">" for Slack to render a quote.
        quote: (t) => `> ${inline(t)}`,
        bullet: (indent, t) => `${indent}• ${inline(t)}`,
        plain: inline,
      });
  }
}

export function toSlackMrkdwn(md: string): string {
  const segs = segment(md);
  const starts = lineStarts(segs);
  return segs.map((s, i) => slackSegment(s, starts[i] ?? true)).join('');
}
