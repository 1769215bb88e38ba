/**
 * Markdown to Slack mrkdwn: *bold*, _italic_, ~strike~, <url|text> links, ``` blocks without a
 * language tag, and &, <, > escaped everywhere else.
 * Source of truth: https://api.slack.com/reference/surfaces/formatting
 */
import { renderSegments, type Segment } from './segments.js';
import { starEmphasis, starProse } from './stars.js';

function escapeSlack(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const inline = (text: string) => starEmphasis(escapeSlack(text));

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
      return starProse(s.text, lineStart, inline);
  }
}

export function toSlackMrkdwn(md: string): string {
  return renderSegments(md, slackSegment);
}
