/**
 * The one place text from the agent becomes HTML, so the one place to audit for XSS. Markdown goes
 * through marked with raw HTML turned into text, then DOMPurify with a short allow-list: links only
 * to http(s) and mailto (opened in a new tab with rel=noopener), images shown as links (the page
 * fetches nothing from other hosts), classes only of code languages and highlight tokens. Code is
 * highlighted by highlight.js, loaded on first use, its output sanitised again.
 */
import DOMPurify from 'dompurify';
import { Marked, Renderer, type Tokens } from 'marked';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const SAFE_URL = /^(?:https?:|mailto:)/i;
const SAFE_CLASS = /^(?:language-[\w+#.-]{1,40}|hljs(?:-[\w-]{1,40})?|table-wrap)$/;

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    // A wide table scrolls inside its own box, not the page.
    table(this: Renderer, token: Tokens.Table) {
      return `<div class="table-wrap">${Renderer.prototype.table.call(this, token)}</div>`;
    },
    // Raw HTML in a reply is shown as the text it is.
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    image: ({ href, text }: Tokens.Image) =>
      SAFE_URL.test(href) ? `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>` : escapeHtml(text),
  },
});

const purify = DOMPurify(window);
purify.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class')
    data.attrValue = data.attrValue
      .split(/\s+/)
      .filter((c) => SAFE_CLASS.test(c))
      .join(' ');
  if (data.attrName === 'href' && !SAFE_URL.test(data.attrValue.trim())) data.keepAttr = false;
});
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.tagName === 'INPUT') node.setAttribute('disabled', '');
});

const MARKDOWN_CONFIG = {
  ALLOWED_TAGS: [
    'div',
    'p',
    'br',
    'strong',
    'em',
    'del',
    's',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'hr',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'input',
    'span',
  ],
  ALLOWED_ATTR: ['href', 'title', 'class', 'align', 'start', 'type', 'checked', 'disabled'],
  ALLOWED_URI_REGEXP: SAFE_URL,
  // With a URI pattern set, DOMPurify checks every attribute outside this list against it as if it were a link:
  // a column's align="right", a list's start="3" and a task box's type and checked are plain values, not URIs.
  ADD_URI_SAFE_ATTR: ['align', 'start', 'type', 'checked', 'disabled'],
  ALLOW_DATA_ATTR: false,
};

/** Markdown to sanitised HTML. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  return purify.sanitize(html, MARKDOWN_CONFIG) as unknown as string;
}

type Highlighter = typeof import('highlight.js/lib/common').default;
let highlighter: Promise<Highlighter> | undefined;
const loadHighlighter = () => (highlighter ??= import('highlight.js/lib/common').then((m) => m.default));
const MAX_HIGHLIGHT = 50_000;

/**
 * Highlights the code blocks under root (loading highlight.js the first time) and gives each a copy button; a box
 * that may scroll sideways (a code block, a table wider than the reply) is one Tab stop, so a keyboard scrolls it.
 */
export function enhanceCode(root: HTMLElement, opts: { highlight: boolean }): void {
  for (const wrap of root.querySelectorAll<HTMLElement>('.table-wrap'))
    if (wrap.scrollWidth > wrap.clientWidth && !wrap.hasAttribute('tabindex')) wrap.tabIndex = 0;
  for (const code of root.querySelectorAll<HTMLElement>('pre > code')) {
    const pre = code.parentElement!;
    if (!pre.parentElement?.classList.contains('code-block')) wrapBlock(pre, code);
    if (!opts.highlight || code.dataset.highlighted || (code.textContent ?? '').length > MAX_HIGHLIGHT) continue;
    code.dataset.highlighted = 'pending';
    loadHighlighter().then(
      (hljs) => {
        const source = code.textContent ?? '';
        const lang = [...code.classList].find((c) => c.startsWith('language-'))?.slice(9);
        const result =
          lang && hljs.getLanguage(lang)
            ? hljs.highlight(source, { language: lang, ignoreIllegals: true })
            : hljs.highlightAuto(source);
        code.innerHTML = purify.sanitize(result.value, {
          ALLOWED_TAGS: ['span'],
          ALLOWED_ATTR: ['class'],
        }) as unknown as string;
        code.classList.add('hljs');
        code.dataset.highlighted = 'yes';
      },
      () => {
        // Not loaded (offline, or a newer build replaced it): the code stays plain; try again next time.
        highlighter = undefined;
        delete code.dataset.highlighted;
      },
    );
  }
}

/**
 * Lines of code highlighted as one text (a comment or a string over several lines is coloured
 * right), then split back into lines: sanitised HTML, one string a line. Undefined when the
 * language is unknown, the text too long, or highlight.js could not load (the lines stay plain).
 */
export async function highlightLines(language: string, lines: string[]): Promise<string[] | undefined> {
  if (!lines.length || lines.reduce((n, l) => n + l.length + 1, 0) > MAX_HIGHLIGHT) return undefined;
  let hljs: Highlighter;
  try {
    hljs = await loadHighlighter();
  } catch {
    highlighter = undefined;
    return undefined;
  }
  if (!hljs.getLanguage(language)) return undefined;
  const html = purify.sanitize(hljs.highlight(lines.join('\n'), { language, ignoreIllegals: true }).value, {
    ALLOWED_TAGS: ['span'],
    ALLOWED_ATTR: ['class'],
  }) as unknown as string;
  const out = splitLines(html);
  return out.length === lines.length ? out : undefined;
}

/** Highlighted HTML split at its newlines: each line closes the spans open at its end, the next reopens them. */
export function splitLines(html: string): string[] {
  const out: string[] = [];
  const open: string[] = [];
  let cur = '';
  for (const m of html.matchAll(/<span class="([^"]*)">|<\/span>|\n|[^<\n]+/g)) {
    const t = m[0];
    if (t === '\n') {
      out.push(cur + '</span>'.repeat(open.length));
      cur = open.map((c) => `<span class="${c}">`).join('');
    } else if (t === '</span>') {
      open.pop();
      cur += t;
    } else {
      if (m[1] !== undefined) open.push(m[1]);
      cur += t;
    }
  }
  out.push(cur + '</span>'.repeat(open.length));
  return out;
}

/** A header above the block: its language and a copy button (never over the code). */
function wrapBlock(pre: HTMLElement, code: HTMLElement): void {
  const block = document.createElement('div');
  block.className = 'code-block';
  pre.tabIndex = 0;
  const head = document.createElement('div');
  head.className = 'code-head';
  const lang = document.createElement('span');
  lang.textContent = [...code.classList].find((c) => c.startsWith('language-'))?.slice(9) ?? '';
  head.append(lang, copyButton(code));
  pre.replaceWith(block);
  block.append(head, pre);
}

function copyButton(code: HTMLElement): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', 'Copy the code');
  button.addEventListener('click', () => {
    void copyText(code.textContent ?? '').then((ok) => {
      button.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    });
  });
  return button;
}

/** The clipboard API needs a secure context (not a phone on http://192.168…): fall back to a selection. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}
