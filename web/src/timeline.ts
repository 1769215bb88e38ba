/**
 * The conversation as the page draws it: an ordered list of entries (a person's message, a turn
 * with the replies it gave, a reply or notice that belongs to no turn) and, apart, the messages
 * still waiting (sending, queued, held, or handed to the running turn but not yet taken in).
 * A message steered into a turn is drawn inside that turn, where the agent took it in.
 */
import type { ChatMessage } from './model.js';
import type { Connection, PermissionStep, Reply, ReviewRecordView, Step, ToolStep, TurnView } from './types.js';

export type Entry =
  | { kind: 'message'; key: string; at: number; message: ChatMessage }
  | { kind: 'turn'; key: string; at: number; turn: TurnView; replies: Reply[] }
  | { kind: 'reply'; key: string; at: number; reply: Reply }
  | { kind: 'review'; key: string; at: number; review: ReviewRecordView };

export interface Timeline {
  entries: Entry[];
  waiting: ChatMessage[];
  /** The newest running turn, if any (the composer's status line and Stop). */
  running: TurnView | undefined;
}

const WAITING = new Set(['sending', 'queued', 'deferred', 'steering']);
const ORDER = { message: 0, turn: 1, reply: 2, review: 3 } as const;

const byArrival = (a: ChatMessage, b: ChatMessage) => a.receivedAt - b.receivedAt;

/** Where each message went: drawn inside a turn (steered into it), waiting at the end, or in the timeline. */
function placeOf(turns: Map<string, TurnView>): (m: ChatMessage) => 'steered' | 'waiting' | 'entry' {
  const steered = new Set<string>();
  const inTurn = new Set<string>();
  for (const t of turns.values()) {
    for (const s of t.steps) if (s?.kind === 'steer') steered.add(s.messageId);
    for (const id of t.inputIds) inTurn.add(id);
  }
  return (m) => {
    if (steered.has(m.id)) return 'steered';
    // One the gateway never accepted waits at the end with what can be done about it.
    return (WAITING.has(m.state) && !inTurn.has(m.id)) || m.unsent ? 'waiting' : 'entry';
  };
}

/** The messages still waiting, oldest first (buildTimeline's `waiting`, without the rest of the timeline). */
export function waitingMessages(messages: Map<string, ChatMessage>, turns: Map<string, TurnView>): ChatMessage[] {
  const place = placeOf(turns);
  return [...messages.values()].filter((m) => place(m) === 'waiting').sort(byArrival);
}

export function buildTimeline(
  messages: Map<string, ChatMessage>,
  turns: Map<string, TurnView>,
  replies: Map<string, Reply>,
  reviews: Map<number, ReviewRecordView> = new Map(),
): Timeline {
  const turnsOf = new Map<string, TurnView[]>();
  for (const t of turns.values())
    for (const id of t.inputIds) {
      const list = turnsOf.get(id) ?? [];
      list.push(t);
      turnsOf.set(id, list);
    }

  const entries: Entry[] = [];
  const waiting: ChatMessage[] = [];
  const place = placeOf(turns);
  for (const m of messages.values()) {
    const where = place(m);
    if (where === 'waiting') waiting.push(m);
    else if (where === 'entry') entries.push({ kind: 'message', key: `m:${m.id}`, at: m.receivedAt, message: m });
  }

  // A reply belongs to the latest turn of its first message that started before it.
  const attached = new Map<string, Reply[]>();
  for (const r of replies.values()) {
    const candidates = (turnsOf.get(r.messageIds[0] ?? '') ?? []).filter((t) => t.startedAt <= r.at);
    const turn = candidates.sort((a, b) => b.startedAt - a.startedAt)[0];
    if (turn) attached.set(turn.id, [...(attached.get(turn.id) ?? []), r]);
    else entries.push({ kind: 'reply', key: `r:${r.id}`, at: r.at, reply: r });
  }

  for (const t of turns.values()) {
    const first = t.inputIds.map((id) => messages.get(id)?.receivedAt).find((x) => x !== undefined);
    entries.push({
      kind: 'turn',
      key: `t:${t.id}`,
      at: Math.max(t.startedAt, first ?? 0),
      turn: t,
      replies: (attached.get(t.id) ?? []).sort((a, b) => a.at - b.at),
    });
  }
  for (const r of reviews.values()) entries.push({ kind: 'review', key: `v:${r.id}`, at: r.at, review: r });
  entries.sort((a, b) => a.at - b.at || ORDER[a.kind] - ORDER[b.kind] || (a.key < b.key ? -1 : 1));
  return { entries, waiting: waiting.sort(byArrival), running: runningTurn(turns) };
}

/**
 * What a turn shows, in the order it happened: its steps (a permission request inside the tool call it asked
 * about, before that tool's output), the notices the gateway sent while it ran among them, its reply, then the
 * line that says how it ended (while it runs: the text still streaming, then what it does now), then what came
 * after its end (a stop's notice).
 */
export type TurnItem =
  | { kind: 'step'; key: string; step: Step; permission?: PermissionStep; cut: boolean }
  | { kind: 'reply'; key: string; reply: Reply }
  | { kind: 'streaming'; key: string }
  | { kind: 'status'; key: string };

/** Each permission request's tool call: the latest one before it with the same tool and input. */
function permissionsInPlace(steps: Step[]): Map<number, PermissionStep> {
  const placed = new Map<number, PermissionStep>();
  for (const p of steps) {
    if (p?.kind !== 'permission') continue;
    for (let i = p.index - 1; i >= 0; i--) {
      const s = steps[i];
      if (s?.kind !== 'tool' || placed.has(i)) continue;
      if (s.name === p.toolName && s.summary === p.summary) placed.set(i, p);
      break;
    }
  }
  return placed;
}

export function turnItems(turn: TurnView, replies: Reply[]): TurnItem[] {
  const steps = turn.steps.filter((s): s is Step => !!s);
  const inTool = permissionsInPlace(turn.steps);
  const nested = new Set([...inTool.values()].map((p) => p.id));
  const last = steps.at(-1)?.index;
  const items: TurnItem[] = [];
  // Notices sent while it ran go among its steps, by time; its replies and what came after its end go below.
  const during = (r: Reply) => r.kind === 'notice' && (turn.endedAt === undefined || r.at <= turn.endedAt);
  const notices = replies.filter(during);
  for (const s of steps) {
    while (notices.length && notices[0]!.at < s.at) {
      const r = notices.shift()!;
      items.push({ kind: 'reply', key: r.id, reply: r });
    }
    if (nested.has(s.id)) continue;
    const permission = inTool.get(s.index);
    items.push({
      kind: 'step',
      key: s.id,
      step: s,
      ...(permission ? { permission } : {}),
      cut: turn.status === 'stopped' && s.index === last,
    });
  }
  for (const r of notices) items.push({ kind: 'reply', key: r.id, reply: r });
  const rest = replies.filter((r) => !during(r));
  for (const r of rest) if (r.kind === 'reply') items.push({ kind: 'reply', key: r.id, reply: r });
  if (turn.status === 'running') items.push({ kind: 'streaming', key: 'streaming' });
  items.push({ kind: 'status', key: 'status' });
  for (const r of rest) if (r.kind !== 'reply') items.push({ kind: 'reply', key: r.id, reply: r });
  return items;
}

/** The newest running turn, if any. */
export function runningTurn(turns: Map<string, TurnView>): TurnView | undefined {
  let running: TurnView | undefined;
  for (const t of turns.values())
    if (t.status === 'running' && (!running || t.startedAt >= running.startedAt)) running = t;
  return running;
}

/** What a running turn is doing now, in one line; `streaming`: its text is arriving. */
export function currentStep(turn: TurnView, streaming = false): string {
  for (let i = turn.steps.length - 1; i >= 0; i--) {
    const s = turn.steps[i];
    if (!s) continue;
    if (s.kind === 'tool' && s.status === 'running') return `${s.name}: ${s.summary}`;
    if (s.kind === 'permission' && s.status === 'open') return `waiting for you: ${s.toolName}`;
  }
  return streaming ? 'writing' : 'thinking';
}

/** The turn's open permission request, if any: the conversation waits for the person. */
export function waitsForYou(turns: Iterable<TurnView>): boolean {
  return openRequest(turns) !== undefined;
}

/** The newest open permission request of the running turns, if any. */
export function openRequest(turns: Iterable<TurnView>): PermissionStep | undefined {
  let open: PermissionStep | undefined;
  for (const t of turns) {
    if (t.status !== 'running') continue;
    for (const s of t.steps)
      if (s?.kind === 'permission' && s.status === 'open' && (!open || s.at >= open.at)) open = s;
  }
  return open;
}

/** The newest turn (running or ended), if any. */
export function latestTurn(turns: Map<string, TurnView>): TurnView | undefined {
  let latest: TurnView | undefined;
  for (const t of turns.values()) if (!latest || t.startedAt >= latest.startedAt) latest = t;
  return latest;
}

/** A tool step waiting for its permission request to be answered. */
export const waitingForAnswer = (tool: ToolStep, permission: PermissionStep | undefined) =>
  tool.status === 'running' && permission?.status === 'open';

/** The page has lost the gateway: what it shows of a running turn may no longer be true. */
export function outOfTouch(connection: Connection): boolean {
  return connection === 'reconnecting' || connection === 'unreachable' || connection === 'unauthorized';
}
