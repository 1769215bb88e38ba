/**
 * The open conversation, oldest first: messages, turns, replies, then what still waits. It stays
 * pinned to the bottom while you are there (streamed text included), keeps its place when older
 * history loads above, and loads older history when you scroll to the top.
 */
import { useEffect, useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { loadOlder, useStore } from '../state.js';
import { buildTimeline } from '../timeline.js';
import { MessageBubble, QueuedMessage } from './MessageBubble.js';
import { ReplyView } from './Reply.js';
import './Timeline.css';
import { Turn } from './Turn.js';

const EMPTY = new Map();
const NEAR_BOTTOM_PX = 80;

export function Timeline() {
  const id = useStore((s) => s.conv?.id);
  const messages = useStore((s) => s.conv?.messages ?? EMPTY);
  const turns = useStore((s) => s.conv?.turns ?? EMPTY);
  const replies = useStore((s) => s.conv?.replies ?? EMPTY);
  const more = useStore((s) => s.conv?.more ?? false);
  const loaded = useStore((s) => s.conv?.loaded ?? false);
  const { entries, waiting } = useMemo(() => buildTimeline(messages, turns, replies), [messages, turns, replies]);

  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const top = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  /** Distance from the bottom before older history was added above, to restore it after. */
  const anchor = useRef<number | undefined>();

  const onScroll = () => {
    const el = scroller.current!;
    pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
  };
  const older = () => {
    const el = scroller.current;
    if (el) anchor.current = el.scrollHeight - el.scrollTop;
    void loadOlder();
  };

  // A new conversation opens at its end.
  useLayoutEffect(() => {
    pinned.current = true;
  }, [id]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (anchor.current !== undefined) {
      el.scrollTop = el.scrollHeight - anchor.current;
      anchor.current = undefined;
    } else if (pinned.current) el.scrollTop = el.scrollHeight;
  });

  // Content that grows without this component rendering (streamed text, highlighted code) keeps the view pinned.
  useEffect(() => {
    const el = scroller.current;
    if (!el || !content.current) return;
    const ro = new ResizeObserver(() => {
      if (pinned.current && anchor.current === undefined) el.scrollTop = el.scrollHeight;
    });
    ro.observe(content.current);
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    const el = top.current;
    if (!el || !more) return;
    const io = new IntersectionObserver((seen) => seen.some((s) => s.isIntersecting) && loaded && older(), {
      root: scroller.current,
      rootMargin: '200px 0px 0px 0px',
    });
    io.observe(el);
    return () => io.disconnect();
  }, [more, loaded, id]);

  return (
    <div class="timeline" ref={scroller} onScroll={onScroll} data-testid="log">
      <div class="timeline-content" ref={content}>
        <div ref={top} />
        {more && (
          <button class="quiet load-earlier" data-testid="load-earlier" onClick={older}>
            Load earlier messages
          </button>
        )}
        {!loaded && id && <p class="dim placeholder">Loading…</p>}
        {loaded && entries.length === 0 && waiting.length === 0 && (
          <p class="dim placeholder">Ask the agent something. It can read and change files in its working directory.</p>
        )}
        {entries.map((e) =>
          e.kind === 'message' ? (
            <MessageBubble key={e.key} m={e.message} />
          ) : e.kind === 'turn' ? (
            <Turn key={e.key} turn={e.turn} replies={e.replies} />
          ) : (
            <ReplyView key={e.key} reply={e.reply} />
          ),
        )}
        {waiting.map((m) => (
          <QueuedMessage key={`w:${m.id}`} m={m} />
        ))}
      </div>
    </div>
  );
}
