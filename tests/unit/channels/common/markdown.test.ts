import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toSlackMrkdwn } from '../../../../src/channels/common/markdown/slack.js';
import {
  tagsBalanced,
  telegramVisibleLength,
  toTelegramHtml,
} from '../../../../src/channels/common/markdown/telegram.js';
import { toWhatsApp } from '../../../../src/channels/common/markdown/whatsapp.js';

describe('Markdown for Telegram (HTML)', () => {
  it('formats emphasis, code, links, headings and quotes, escaping everything else', () => {
    const html = toTelegramHtml(
      '# Title\n**bold** and *it* and `a<b>` & [docs](https://x.test/a_b)\n> quoted\n\n```ts\nif (a < b && c) {}\n```',
    );
    expect(html).toBe(
      '<b>Title</b>\n<b>bold</b> and <i>it</i> and <code>a&lt;b&gt;</code> &amp; <a ' +
        'href="https://x.test/a_b">docs</a>\n<blockquote>quoted</blockquote>\n\n<pre><code ' +
        'class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>',
    );
  });

  it('leaves snake_case and arithmetic alone', () => {
    expect(toTelegramHtml('use my_var_name and 2*3*4')).toBe('use my_var_name and 2*3*4');
  });

  it('property: any input gives HTML that Telegram can parse, with only our tags', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            'a',
            ' ',
            '*',
            '_',
            '~',
            '`',
            '<',
            '>',
            '&',
            '[',
            ']',
            '(',
            ')',
            '\n',
            '#',
            'h',
            't',
            'p',
            ':',
            '/',
          ),
        }),
        (s) => {
          const html = toTelegramHtml(s);
          expect(tagsBalanced(html)).toBe(true);
          for (const m of html.matchAll(/<\/?([a-z]+)/g))
            expect(['b', 'i', 's', 'code', 'pre', 'a', 'blockquote']).toContain(m[1]);
          expect(telegramVisibleLength(html)).toBeLessThanOrEqual(s.length + 8);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('Markdown for Slack (mrkdwn)', () => {
  it('converts emphasis and links, escapes &, <, >, and drops the fence language', () => {
    expect(toSlackMrkdwn('**bold** *it* ~~gone~~ [site](https://x.test) a<b>&c\n```js\nx => y && z\n```')).toBe(
      '*bold* _it_ ~gone~ <https://x.test|site> a&lt;b&gt;&amp;c\n```\nx =&gt; y &amp;&amp; z\n```',
    );
  });

  it('keeps a block quote marker literal', () => {
    expect(toSlackMrkdwn('> note this')).toBe('> note this');
  });
});

describe('Markdown for WhatsApp', () => {
  it('converts emphasis, links and headings without escaping', () => {
    expect(toWhatsApp('## Plan\n**bold** *it* ~~no~~ [docs](https://x.test) a<b\n```py\nprint(1)\n```')).toBe(
      '*Plan*\n*bold* _it_ ~no~ docs (https://x.test) a<b\n```\nprint(1)\n```',
    );
  });
});
