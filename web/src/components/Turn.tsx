/**
 * One turn as a timeline, in the order it happened (timeline.ts turnItems): its steps (text blocks,
 * tool calls with the permission requests they waited on, steered messages, notices), the text
 * still streaming, the reply, then the line that says how it ended (a running turn: how long it has
 * run and what it is doing now), then what came after its end.
 */
import { type ComponentChild, Fragment } from 'preact';
import { memo } from 'preact/compat';
import { useState } from 'preact/hooks';
import { count, duration, localTimes, tokens, usd } from '../format.js';
import { useNow } from '../hooks.js';
import { useStore } from '../state.js';
import { currentStep, outOfTouch, turnItems } from '../timeline.js';
import type { Reply, TurnUsage, TurnView } from '../types.js';
import { Markdown } from './Markdown.js';
import { ReplyView } from './Reply.js';
import { StepView } from './Step.js';
import './Turn.css';

const ENDED: Record<string, string> = { answered: 'Done', stopped: 'Stopped', failed: 'Failed' };

const allTokens = (u: TurnUsage) => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheCreationTokens;
/** A cost the backend did not report is unknown, never $0. */
const money = (v: number | null) => (v === null ? 'cost unknown' : usd(v));

/** What the turn used, opened from its "Done" line: tokens by kind, cost by model, the agent's own time. */
function UsageDetails({ usage }: { usage: TurnUsage }) {
  const models = Object.entries(usage.models ?? {});
  return (
    <dl class="turn-usage" data-testid="turn-usage">
      <dt>Tokens</dt>
      <dd>
        {count(usage.inputTokens)} in · {count(usage.outputTokens)} out
        {usage.cacheReadTokens || usage.cacheCreationTokens
          ? ` · ${count(usage.cacheReadTokens)} cache read · ${count(usage.cacheCreationTokens)} cache write`
          : ''}
      </dd>
      <dt>Cost</dt>
      <dd data-testid="turn-cost">
        {money(usage.costUsd)}
        {usage.costUsd === null ? ' (this agent reports tokens only)' : ''}
      </dd>
      {models.map(([name, m]) => (
        <Fragment key={name}>
          <dt class="model">{name}</dt>
          <dd>
            {tokens(m.inputTokens + m.outputTokens + m.cacheReadTokens + m.cacheCreationTokens)} tokens ·{' '}
            {money(m.costUsd)}
          </dd>
        </Fragment>
      ))}
      <dt>Agent time</dt>
      <dd>{duration(usage.durationMs)}</dd>
    </dl>
  );
}

function Status({ turn }: { turn: TurnView }) {
  const running = turn.status === 'running';
  // Without the gateway nobody knows whether it still runs: say so rather than count on.
  const unknown = useStore((s) => running && outOfTouch(s.connection));
  const streaming = useStore((s) => running && !!s.conv?.streaming.get(turn.id));
  const now = useNow(running && !unknown);
  const tools = turn.steps.filter((s) => s?.kind === 'tool').length;
  const took = duration((turn.endedAt ?? now) - turn.startedAt);
  // The status region (Announcer) says it: the line is not read out again each time it changes.
  if (unknown)
    return (
      <div class="turn-status unknown" data-testid="turn-status" data-unknown="true" aria-live="off">
        Was working · state unknown until the gateway is back
      </div>
    );
  if (running) {
    return (
      <div class="turn-status running" data-testid="turn-status" aria-live="off">
        <span class="pulse" aria-hidden="true" />
        Working · {took} · {currentStep(turn, streaming)}
      </div>
    );
  }
  const line = (
    <>
      {ENDED[turn.status] ?? turn.status} · {took}
      {tools ? ` · ${tools} tool call${tools === 1 ? '' : 's'}` : ''}
    </>
  );
  if (!turn.usage)
    return (
      <div class={`turn-status ${turn.status}`} data-testid="turn-status" aria-live="off">
        {line}
      </div>
    );
  return <EndedWithUsage turn={turn} usage={turn.usage} line={line} />;
}

/** The "Done" line with what the turn used; a tap (or click) opens the details. */
function EndedWithUsage({ turn, usage, line }: { turn: TurnView; usage: TurnUsage; line: ComponentChild }) {
  const [open, setOpen] = useState(false);
  return (
    <div class="turn-ended" aria-live="off">
      <button
        type="button"
        class={`turn-status ${turn.status} with-usage`}
        data-testid="turn-status"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {line}
        <span class="usage" data-testid="turn-usage-line">
          {' · '}
          {tokens(allTokens(usage))} tokens · {money(usage.costUsd)}
        </span>
      </button>
      {open && <UsageDetails usage={usage} />}
    </div>
  );
}

function Streaming({ turnId }: { turnId: string }) {
  const text = useStore((s) => s.conv?.streaming.get(turnId));
  if (!text) return null;
  // Read once it is whole (the reply): not piece by piece as it arrives.
  return (
    <div class="text-step streaming" data-testid="streaming" aria-busy="true" aria-live="off">
      <Markdown text={text} highlight={false} />
    </div>
  );
}

function sameReplies(a: Reply[], b: Reply[]): boolean {
  return a.length === b.length && a.every((r, i) => r === b[i]);
}

export const Turn = memo(
  function Turn({ turn, replies }: { turn: TurnView; replies: Reply[] }) {
    const hasReply = replies.some((r) => r.kind === 'reply');
    // A failure's notice (what a chat gets too) says it whole, with the fix: the page shows it once.
    const error = turn.status === 'failed' ? turn.error : undefined;
    const told = error && replies.some((r) => r.kind === 'notice' && r.text.includes(error.message));
    return (
      <section class={`turn ${turn.status}`} data-testid="turn" data-turn-id={turn.id} data-status={turn.status}>
        {turnItems(turn, replies).map((item) =>
          item.kind === 'step' ? (
            <StepView
              key={item.key}
              step={item.step}
              hideFinal={hasReply}
              cut={item.cut}
              permission={item.permission}
            />
          ) : item.kind === 'reply' ? (
            <ReplyView key={item.key} reply={item.reply} />
          ) : item.kind === 'streaming' ? (
            <Streaming key={item.key} turnId={turn.id} />
          ) : (
            <Fragment key={item.key}>
              <Status turn={turn} />
              {error && !told && (
                <div class="turn-error" data-testid="turn-error">
                  {localTimes(error.message, turn.endedAt ?? turn.startedAt)}
                </div>
              )}
            </Fragment>
          ),
        )}
      </section>
    );
  },
  (a, b) => a.turn === b.turn && sameReplies(a.replies, b.replies),
);
