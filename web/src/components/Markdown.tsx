/** Agent text as sanitised Markdown (render.ts), with copy buttons and, once complete, highlighted code. */
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { enhanceCode, renderMarkdown } from '../render.js';
import './Markdown.css';

export function Markdown({ text, highlight = true }: { text: string; highlight?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const html = useMemo(() => renderMarkdown(text), [text]);
  useLayoutEffect(() => {
    if (ref.current) enhanceCode(ref.current, { highlight });
  }, [html, highlight]);
  return <div class="md" ref={ref} dangerouslySetInnerHTML={{ __html: html }} />;
}
