/**
 * A reply (Markdown), or a notice from the gateway: a command's answer is a left-aligned block (a
 * table for "Key: value" lines, monospace for lists, its fenced blocks and tables drawn as the
 * agent's Markdown is: a diff as a diff), a one-line notice a quiet line. Times the gateway wrote in
 * UTC are shown in this device's zone and format.
 */
import { memo } from 'preact/compat';
import { useStore } from '../app-store.js';
import { localTimes } from '../format.js';
import { noticeBlocks } from '../notice-format.js';
import type { Reply } from '../types.js';
import { Markdown } from './Markdown.js';
import { PlayButton } from './PlayButton.js';
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
        ) : b.kind === 'markdown' ? (
          <Markdown text={b.text} key={i} />
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
  const text = localTimes(reply.text, reply.at);
  const block = command !== undefined || text.includes('\n');
  if (!block)
    return (
      <div class="notice" data-testid="notice" data-id={reply.id}>
        {text}
      </div>
    );
  return (
    <div class="notice block" data-testid="notice" data-id={reply.id} data-command={command}>
      {command && <div class="notice-head">{command}</div>}
      <Blocks text={text} />
    </div>
  );
}

/**
 * The reply without the transcripts the gateway writes before an answer to a voice note (a chat needs them; the page
 * shows each in its voice note's bubble).
 */
function withoutTranscripts(text: string, heard: string[]): string {
  const prefix = heard.length ? `${heard.map((t) => `🎤 “${t}”`).join('\n')}\n\n` : '';
  return prefix && text.startsWith(prefix) ? text.slice(prefix.length) : text;
}

export const ReplyView = memo(function ReplyView({ reply }: { reply: Reply }) {
  const speak = useStore((s) => s.speech.speak);
  const heard = useStore((s) =>
    reply.messageIds
      .map((id) => s.conv?.messages.get(id)?.voice?.transcript)
      .filter((t): t is string => t !== undefined)
      .join('\u0000'),
  );
  if (reply.kind === 'notice') return <NoticeView reply={reply} />;
  const said = heard ? withoutTranscripts(reply.text, heard.split('\u0000')) : reply.text;
  // The local model's answer starts with the gateway's line saying until when (in UTC).
  const text = reply.fromFallback ? localTimes(said, reply.at) : said;
  return (
    <div class={`reply${reply.fromFallback ? ' fallback' : ''}`} data-testid="reply" data-id={reply.id}>
      {reply.fromFallback && <div class="fallback-label">Local model</div>}
      <Markdown text={text} />
      {speak && <PlayButton replyId={reply.id} />}
    </div>
  );
});
