/**
 * A reply (Markdown), or a notice from the gateway (plain text): a command's answer is a left-aligned
 * block (a table for "Key: value" lines, monospace for lists), a one-line notice a quiet line.
 */
import { memo } from 'preact/compat';
import { useStore } from '../app-store.js';
import { noticeBlocks } from '../notice-format.js';
import type { Reply } from '../types.js';
import { Markdown } from './Markdown.js';
import './Reply.css';

function Blocks({ text }: { text: string }) {
  return (
    <>
      {noticeBlocks(text).map((b, i) =>
        b.kind === 'pairs' ? (
          <table class="notice-pairs" data-testid="notice-table" key={i}>
            <tbody>
              {b.rows.map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td>{v}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : b.kind === 'lines' ? (
          <pre class="notice-lines" data-testid="notice-lines" key={i}>
            {b.lines.join('\n')}
          </pre>
        ) : (
          <p class="notice-text" key={i}>
            {b.text}
          </p>
        ),
      )}
    </>
  );
}

function NoticeView({ reply }: { reply: Reply }) {
  const command = useStore((s) => {
    const m = s.conv?.messages.get(reply.messageIds[0] ?? '');
    return m?.state === 'command' ? m.text.trim().split(/\s+/)[0] : undefined;
  });
  const block = command !== undefined || reply.text.includes('\n');
  if (!block)
    return (
      <div class="notice" data-testid="notice" data-id={reply.id}>
        {reply.text}
      </div>
    );
  return (
    <div class="notice block" data-testid="notice" data-id={reply.id} data-command={command}>
      {command && <div class="notice-head">{command}</div>}
      <Blocks text={reply.text} />
    </div>
  );
}

export const ReplyView = memo(function ReplyView({ reply }: { reply: Reply }) {
  if (reply.kind === 'notice') return <NoticeView reply={reply} />;
  return (
    <div class={`reply${reply.fromFallback ? ' fallback' : ''}`} data-testid="reply" data-id={reply.id}>
      {reply.fromFallback && <div class="fallback-label">Local model</div>}
      <Markdown text={reply.text} />
    </div>
  );
});
