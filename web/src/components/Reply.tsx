/** A reply (Markdown) or a notice (plain text) from the gateway. */
import { memo } from 'preact/compat';
import type { Reply } from '../types.js';
import { Markdown } from './Markdown.js';
import './Reply.css';

export const ReplyView = memo(function ReplyView({ reply }: { reply: Reply }) {
  if (reply.kind === 'notice') {
    return (
      <div class="notice" data-testid="notice" data-id={reply.id}>
        {reply.text}
      </div>
    );
  }
  return (
    <div class={`reply${reply.fromFallback ? ' fallback' : ''}`} data-testid="reply" data-id={reply.id}>
      {reply.fromFallback && <div class="fallback-label">Local model</div>}
      <Markdown text={reply.text} />
    </div>
  );
});
