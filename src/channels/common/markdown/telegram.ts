/**
 * Markdown to Telegram HTML (parse_mode "HTML"). HTML is used rather than MarkdownV2 because its
 * escaping is three characters (& < >) and cannot be got subtly wrong.
 * Source of truth: https://core.telegram.org/bots/api#html-style
 */
import { emphasis, proseLines, renderSegments, type Segment, segment, unbold } from './segments.js';

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const escapeAttr = (s: string) => escapeHtml(s).replace(/"/g, '&quot;');

function inline(text: string): string {
  return emphasis(escapeHtml(text), {
    bold: (s) => `<b>${s}</b>`,
    italic: (s) => `<i>${s}</i>`,
    strike: (s) => `<s>${s}</s>`,
  });
}

/** One segment; lineStart: it begins a line (only then may its first line be a quote, heading or bullet). */
function telegramSegment(s: Segment, lineStart: boolean): string {
  switch (s.kind) {
    case 'fence':
      return s.lang
        ? `<pre><code class="language-${escapeAttr(s.lang)}">${escapeHtml(s.code)}</code></pre>`
        : `<pre>${escapeHtml(s.code)}</pre>`;
    case 'code':
      return `<code>${escapeHtml(s.code)}</code>`;
    case 'link':
      return `<a href="${escapeAttr(s.url)}">${inline(s.text)}</a>`;
    case 'url':
      return escapeHtml(s.url);
    case 'text':
      return proseLines(s.text, lineStart, {
        heading: (t) => `<b>${inline(unbold(t))}</b>`,
        quote: (t) => `<blockquote>${inline(t)}</blockquote>`,
        bullet: (indent, t) => `${indent}• ${inline(t)}`,
        plain: inline,
      });
  }
}

/** Renders Markdown as Telegram HTML; falls back to escaped plain text if the tags would not nest. */
export function toTelegramHtml(md: string): string {
  const html = renderSegments(md, telegramSegment)
    // Consecutive quoted lines are one quote.
    .replace(/<\/blockquote>\n<blockquote>/g, '\n');
  return tagsBalanced(html) ? html : plainTelegramHtml(md);
}

/** Escaped text with only code blocks formatted: always valid, used when emphasis crosses. */
function plainTelegramHtml(md: string): string {
  return segment(md)
    .map((s) =>
      s.kind === 'fence'
        ? `<pre>${escapeHtml(s.code)}</pre>`
        : s.kind === 'code'
          ? `<code>${escapeHtml(s.code)}</code>`
          : s.kind === 'link'
            ? escapeHtml(`${s.text} (${s.url})`)
            : escapeHtml(s.kind === 'url' ? s.url : s.text),
    )
    .join('');
}

/** Checks that tags open and close in nested order, as Telegram's parser requires. */
export function tagsBalanced(html: string): boolean {
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-z]+)(?:\s[^>]*)?>/g)) {
    if (m[1] === '') stack.push(m[2]!);
    else if (stack.pop() !== m[2]) return false;
  }
  return stack.length === 0;
}

/** The text Telegram shows for our HTML: tags gone, entities decoded (used for plain-text resends). */
export function htmlToText(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** The length Telegram counts: the text after its entities are parsed. */
export function telegramVisibleLength(html: string): number {
  return htmlToText(html).length;
}
