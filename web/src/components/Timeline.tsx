/**
 * The open conversation, oldest first: messages, turns, replies, then what still waits. It keeps
 * to the bottom while the person is there (a reply in one block, streamed text and late
 * highlighting included), never moves while they read above (a "jump to latest" button counts
 * what came below), always shows their own message once they send it, keeps its place when older
 * history loads above, and loads older history at the top.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { loadOlder, useStore } from '../state.js';
import { buildTimeline, type Timeline as TimelineModel } from '../timeline.js';
import { MessageBubble, QueuedMessage } from './MessageBubble.js';
import { ReplyView } from './Reply.js';
import { ReviewNote } from './ReviewNote.js';
import { RunningNow } from './RunningNow.js';
import './Timeline.css';
import { Turn } from './Turn.js';

const EMPTY = new Map();
/** Within this distance of the end the person is "at the bottom". */
const NEAR_BOTTOM_PX = 80;

/** What the person would count as new: messages, replies and notices, permission requests. */
function itemsOf(t: TimelineModel): number {
  let n = t.waiting.length;
  for (const e of t.entries)
    n += e.kind === 'turn' ? e.replies.length + e.turn.steps.filter((s) => s?.kind === 'permission').length : 1;
  return n;
}

export function Timeline() {
  const id = useStore((s) => s.conv?.id);
  const messages = useStore((s) => s.conv?.messages ?? EMPTY);
  const turns = useStore((s) => s.conv?.turns ?? EMPTY);
  const replies = useStore((s) => s.conv?.replies ?? EMPTY);
  const reviews = useStore((s) => s.conv?.reviews ?? EMPTY);
  const more = useStore((s) => s.conv?.more ?? false);
  const loaded = useStore((s) => s.conv?.loaded ?? false);
  const sentSeq = useStore((s) => s.sentSeq);
  const project = useStore((s) => s.conversations.find((c) => c.id === s.currentId)?.project);
  const timeline = useMemo(() => buildTimeline(messages, turns, replies, reviews), [messages, turns, replies, reviews]);
  const { entries, waiting } = timeline;
  // Messages a notice answers: the notice says why they failed, the bubble need not say it again.
  const told = useMemo(
    () => new Set([...replies.values()].filter((r) => r.kind === 'notice').flatMap((r) => r.messageIds)),
    [replies],
  );
  const items = itemsOf(timeline);

  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const top = useRef<HTMLDivElement>(null);
  /** Follow the end: true while the person is at the bottom; only their own scrolling up clears it. */
  const pinned = useRef(true);
  const lastTop = useRef(0);
  /** Distance from the bottom before older history was added above, to restore it after. */
  const anchor = useRef<number | undefined>();
  /** How many items there were when the person left the bottom (undefined: at the bottom). */
  const [leftAt, setLeftAt] = useState<number | undefined>();
  const sent = useRef(sentSeq);

  const toBottom = () => {
    const el = scroller.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    lastTop.current = el.scrollTop;
  };
  const pin = () => {
    pinned.current = true;
    setLeftAt(undefined);
  };

  const onScroll = () => {
    const el = scroller.current!;
    const gap = el.scrollHeight - el.scrollTop - el.clientHeight;
    // Content growing below does not move scrollTop; only the person scrolling up does.
    if (gap <= NEAR_BOTTOM_PX) pin();
    else if (el.scrollTop < lastTop.current - 1 && pinned.current) {
      pinned.current = false;
      setLeftAt(items);
    }
    lastTop.current = el.scrollTop;
  };
  const older = () => {
    const el = scroller.current;
    if (el) anchor.current = el.scrollHeight - el.scrollTop;
    void loadOlder();
  };
  const jump = () => {
    pin();
    toBottom();
  };

  // A conversation opens at its end.
  useLayoutEffect(() => {
    pin();
  }, [id]);

  // The person's own message is always shown, wherever they were.
  useLayoutEffect(() => {
    if (sent.current === sentSeq) return;
    sent.current = sentSeq;
    pin();
  }, [sentSeq]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (anchor.current !== undefined) {
      el.scrollTop = el.scrollHeight - anchor.current;
      lastTop.current = el.scrollTop;
      anchor.current = undefined;
    } else if (pinned.current) toBottom();
  });

  // Content that grows without this component rendering (streamed text, highlighted code) keeps the view pinned.
  useEffect(() => {
    if (!content.current) return;
    const ro = new ResizeObserver(() => {
      if (pinned.current && anchor.current === undefined) toBottom();
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

  const fresh = leftAt === undefined ? 0 : Math.max(0, items - leftAt);
  return (
    <div class="timeline-wrap">
      {/* A log: what is added is read out (a reply once it is whole), not what changes in place. */}
      <div
        class="timeline"
        ref={scroller}
        onScroll={onScroll}
        data-testid="log"
        role="log"
        aria-label="Conversation"
        aria-relevant="additions"
      >
        <div class="timeline-content" ref={content}>
          <div ref={top} />
          {more && (
            <button type="button" class="quiet load-earlier" data-testid="load-earlier" onClick={older}>
              Load earlier messages
            </button>
          )}
          {!loaded && id && <p class="dim placeholder">Loading…</p>}
          {loaded && entries.length === 0 && waiting.length === 0 && (
            <>
              <p class="dim placeholder">
                Ask the agent something. It can read and change files in its working directory.
              </p>
              {project && <RunningNow project={project} />}
            </>
          )}
          {entries.map((e) =>
            e.kind === 'message' ? (
              <MessageBubble key={e.key} m={e.message} told={told.has(e.message.id)} />
            ) : e.kind === 'turn' ? (
              <Turn key={e.key} turn={e.turn} replies={e.replies} />
            ) : e.kind === 'review' ? (
              <ReviewNote key={e.key} review={e.review} />
            ) : (
              <ReplyView key={e.key} reply={e.reply} />
            ),
          )}
          {waiting.map((m) => (
            <QueuedMessage key={`w:${m.id}`} m={m} />
          ))}
        </div>
      </div>
      {leftAt !== undefined && (
        <button
          type="button"
          class="jump-latest"
          data-testid="jump-latest"
          aria-label={fresh ? `Jump to the latest: ${fresh} new` : 'Jump to the latest'}
          onClick={jump}
        >
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
            <path
              d="M12 5v14M5 12l7 7 7-7"
              fill="none"
              stroke="currentColor"
              stroke-width="2.4"
              stroke-linecap="round"
              stroke-linejoin="round"
            />
          </svg>
          {fresh > 0 && (
            <span class="count" data-testid="jump-count">
              {fresh}
            </span>
          )}
        </button>
      )}
    </div>
  );
}
