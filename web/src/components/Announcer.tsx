/**
 * What a screen reader is told without looking for it, in three live regions that stay in the
 * page (a region added with its text is not read): the turn's state (working and on what, done,
 * stopped, failed) and where the newest waiting message stands, as statuses; a permission request
 * that arrives, as an alert, which also names itself in the page's title until it is answered.
 */
import { useEffect, useMemo } from 'preact/hooks';
import { duration, localTimes } from '../format.js';
import { waitText } from '../message-history.js';
import { useStore } from '../state.js';
import { currentStep, latestTurn, openRequest, outOfTouch, waitingMessages } from '../timeline.js';
import type { TurnView } from '../types.js';

const EMPTY = new Map();
const ENDED: Record<string, string> = { answered: 'Done', stopped: 'Stopped', failed: 'Failed' };

function turnState(turn: TurnView | undefined, streaming: boolean, unknown: boolean): string {
  if (!turn) return '';
  if (turn.status === 'running')
    return unknown ? 'State unknown until the gateway is back.' : `Working: ${currentStep(turn, streaming)}.`;
  const took = turn.endedAt ? ` after ${duration(turn.endedAt - turn.startedAt)}` : '';
  const why = turn.status === 'failed' && turn.error ? `: ${localTimes(turn.error.message, turn.endedAt ?? 0)}` : '';
  return `${ENDED[turn.status] ?? turn.status}${took}${why}.`;
}

export function Announcer() {
  const turns = useStore((s) => s.conv?.turns ?? EMPTY);
  const messages = useStore((s) => s.conv?.messages ?? EMPTY);
  const latest = useMemo(() => latestTurn(turns), [turns]);
  const streaming = useStore((s) => !!latest && !!s.conv?.streaming.get(latest.id));
  const unknown = useStore((s) => outOfTouch(s.connection));
  const title = useStore((s) => s.conversations.find((c) => c.id === s.currentId)?.title ?? undefined);
  const request = useMemo(() => openRequest(turns.values()), [turns]);
  const waiting = useMemo(() => waitingMessages(messages, turns).at(-1), [messages, turns]);

  useEffect(() => {
    const base = title ? `${title} – Rudder` : 'Rudder';
    document.title = request ? `🔐 ${request.toolName} waits for you · ${base}` : base;
  }, [request, title]);

  const alert = request
    ? `The agent asks to use ${request.toolName}: ${request.summary}. Approve or deny it in the conversation.`
    : '';
  return (
    <div class="sr-only">
      <div role="status" data-testid="turn-state">
        {turnState(latest, streaming, unknown)}
      </div>
      <div role="status" data-testid="queue-state">
        {waiting ? `Your message “${waiting.text.slice(0, 80)}”: ${waitText(waiting)}` : ''}
      </div>
      <div role="alert" data-testid="permission-alert">
        {alert}
      </div>
    </div>
  );
}
