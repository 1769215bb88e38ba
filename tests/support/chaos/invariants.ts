/**
 * The invariant checker: reads the store (SQLite, read-only, after the gateway stopped), the slow
 * channel's platform log and the list of messages the senders were told were accepted.
 *   - every accepted message exists and has one terminal outcome, visible to the person;
 *   - every answered message has exactly one reply, and every reply was delivered exactly once;
 *   - no reply goes to the wrong conversation (ids, and the tags the agent echoed);
 *   - every message that ran has its turn recorded; nothing sent before a /stop or /clear runs in a
 *     turn that started after it;
 *   - the SQLite integrity check passes;
 *   - (checkModelInputs) a message a rate limit held reaches the model once: no API request holds
 *     two wrapped copies of it (a crash re-run sends the text again on purpose and is left out).
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { OPEN_STATES } from '../../../src/store/types.js';
import { wrappedTexts } from '../mock-anthropic.js';
import type { Accepted } from './rig.js';
import { SLOW_CHANNEL, type SlowDelivery } from './slow-channel.js';

export type ViolationKind =
  | 'lost'
  | 'duplicated'
  | 'wrong-conversation'
  | 'silent'
  | 'ran-after-stop'
  | 'untracked-turn'
  | 'integrity'
  | 'leaked-process'
  | 'gateway';

export interface Violation {
  kind: ViolationKind;
  detail: string;
}

interface MessageRow {
  seq: number;
  id: string;
  received_at: number;
  turn_id: string | null;
  conversation_id: string;
  state: string;
  reason: string | null;
  text: string;
}

interface OutboxRow {
  id: string;
  conversation_id: string;
  kind: string;
  message_ids: string;
  text: string;
  from_fallback: number;
  delivered_at: number | null;
}

const ANSWERED = ['answered', 'steered', 'merged'];
/**
 * End states a message can reach without ever being handed to the agent: refused by access
 * control, a command, stopped or withdrawn while it waited in line, failed before a turn (e.g. a
 * voice note with no speech-to-text). Only these may have no turn.
 */
const NEVER_RAN = ['refused', 'command', 'stopped', 'withdrawn', 'failed'];

export function checkStore(
  dbFile: string,
  accepted: Accepted[],
  slowLog: string,
): { violations: Violation[]; states: Record<string, number> } {
  const v: Violation[] = [];
  const db = new Database(dbFile, { readonly: true });
  try {
    const integrity = String(db.pragma('integrity_check', { simple: true }));
    if (integrity !== 'ok') v.push({ kind: 'integrity', detail: `PRAGMA integrity_check: ${integrity}` });

    const messages = new Map(
      (
        db
          .prepare('SELECT seq, id, conversation_id, state, reason, text, received_at, turn_id FROM messages')
          .all() as MessageRow[]
      ).map((m) => [m.id, m]),
    );
    const outbox = db
      .prepare(
        'SELECT id, conversation_id, kind, message_ids, text, from_fallback, delivered_at FROM outbox ORDER BY seq',
      )
      .all() as OutboxRow[];
    const events = db
      .prepare(
        "SELECT conversation_id, type, message_id, outbox_id, data FROM events WHERE type IN ('reply', 'ack', 'error')",
      )
      .all() as Array<{
      conversation_id: string;
      type: string;
      message_id: string | null;
      outbox_id: string | null;
      data: string;
    }>;
    const conversations = new Map(
      (db.prepare('SELECT id, key FROM conversations').all() as Array<{ id: string; key: string }>).map((c) => [
        c.id,
        c.key,
      ]),
    );

    for (const a of accepted) {
      const m = messages.get(a.messageId);
      if (!m)
        v.push({
          kind: 'lost',
          detail: `${a.messageId} (${a.conversation}) was acknowledged as ${a.disposition} but is not in the store`,
        });
      else if (m.conversation_id !== a.conversation)
        v.push({
          kind: 'wrong-conversation',
          detail: `${a.messageId} was sent to ${a.conversation} but is stored under ${m.conversation_id}`,
        });
    }

    const replies = new Map<string, OutboxRow[]>();
    const anyOutbox = new Map<string, OutboxRow[]>();
    for (const o of outbox) {
      const ids = JSON.parse(o.message_ids) as string[];
      for (const id of ids) {
        const m = messages.get(id);
        if (m && m.conversation_id !== o.conversation_id)
          v.push({
            kind: 'wrong-conversation',
            detail: `outbox ${o.id} in ${o.conversation_id} answers ${id} of ${m.conversation_id}`,
          });
        (anyOutbox.get(id) ?? anyOutbox.set(id, []).get(id)!).push(o);
        if (o.kind === 'reply' && !o.from_fallback) (replies.get(id) ?? replies.set(id, []).get(id)!).push(o);
      }
      if (o.delivered_at === null)
        v.push({
          kind: 'lost',
          detail:
            `outbox ${o.id} (${o.kind} to ${o.conversation_id}) was never ` +
            `delivered: ${JSON.stringify(o.text.slice(0, 80))}`,
        });
      const key = conversations.get(o.conversation_id);
      for (const t of o.text.matchAll(/tag:([\w]+)-m\d+/g)) {
        if (t[1] !== key)
          v.push({
            kind: 'wrong-conversation',
            detail: `outbox ${o.id} to ${o.conversation_id} carries ${t[0]}, a message of conversation ${t[1]}`,
          });
      }
    }

    const visible = new Set<string>();
    for (const e of events) {
      if (e.message_id && (e.type === 'error' || (e.type === 'ack' && JSON.parse(e.data).kind === 'stopped')))
        visible.add(e.message_id);
      if (e.type === 'error')
        for (const id of (JSON.parse(e.data).messageIds as string[] | undefined) ?? []) visible.add(id);
    }
    const replyEvents = new Map<string, number>();
    for (const e of events)
      if (e.type === 'reply' && e.outbox_id) replyEvents.set(e.outbox_id, (replyEvents.get(e.outbox_id) ?? 0) + 1);
    for (const o of outbox) {
      const n = replyEvents.get(o.id) ?? 0;
      if (o.delivered_at !== null && n !== 1)
        v.push({
          kind: n > 1 ? 'duplicated' : 'lost',
          detail: `outbox ${o.id} is marked delivered with ${n} reply events`,
        });
    }

    for (const m of messages.values()) {
      const tag = /tag:[\w-]+/.exec(m.text)?.[0] ?? JSON.stringify(m.text.slice(0, 40));
      const where = `${m.id} ${tag} in ${m.conversation_id}`;
      if (OPEN_STATES.includes(m.state as never)) {
        v.push({
          kind: 'lost',
          detail: `${where} is still ${m.state} once everything settled (${m.reason ?? 'no reason'})`,
        });
        continue;
      }
      const r = replies.get(m.id) ?? [];
      if (ANSWERED.includes(m.state) && r.length === 0)
        v.push({ kind: 'lost', detail: `${where} is ${m.state} but no reply answers it` });
      if (r.length > 1)
        v.push({
          kind: 'duplicated',
          detail: `${where} is answered by ${r.length} replies: ${r.map((o) => o.id).join(', ')}`,
        });
      if (r.length > 0 && !ANSWERED.includes(m.state))
        v.push({
          kind: 'duplicated',
          detail: `${where} ended ${m.state} (${m.reason}) yet a reply answers it (${r[0]!.id})`,
        });
      if ((m.state === 'failed' || m.state === 'command') && !anyOutbox.has(m.id))
        v.push({
          kind: 'silent',
          detail: `${where} ended ${m.state} (${m.reason ?? ''}) with no notice to the person`,
        });
      if (m.state === 'stopped' && !anyOutbox.has(m.id) && !visible.has(m.id))
        v.push({
          kind: 'silent',
          detail: `${where} ended stopped (${m.reason ?? ''}) with no acknowledgement, notice or error event`,
        });
    }

    // Every message handed to the agent names a recorded turn; only a message that never ran has none.
    // (Messages still open are reported as lost above.)
    const turnStart = new Map(
      (db.prepare('SELECT id, started_at FROM turns').all() as Array<{ id: string; started_at: number }>).map((t) => [
        t.id,
        t.started_at,
      ]),
    );
    for (const m of messages.values()) {
      if (OPEN_STATES.includes(m.state as never)) continue;
      const where = `${m.id} ${/tag:[\w-]+/.exec(m.text)?.[0] ?? ''} in ${m.conversation_id} (${m.state})`;
      if (m.turn_id === null && !NEVER_RAN.includes(m.state))
        v.push({
          kind: 'untracked-turn',
          detail: `${where} has no turn, yet only ${NEVER_RAN.join('/')} messages can end without running`,
        });
      else if (m.turn_id !== null && !turnStart.has(m.turn_id))
        v.push({ kind: 'untracked-turn', detail: `${where} names turn ${m.turn_id}, which the store has no row for` });
    }

    // /stop and /clear end everything sent before them: none of it may run in a later turn, whatever its end state.
    const stops = [...messages.values()].filter(
      (m) => m.state === 'command' && /^\s*(\/(stop|clear|new)\b|stop[.!]*\s*$)/i.test(m.text),
    );
    for (const cmd of stops) {
      for (const m of messages.values()) {
        if (m.conversation_id !== cmd.conversation_id || m.seq >= cmd.seq || m.turn_id === null) continue;
        const at = turnStart.get(m.turn_id);
        if (at !== undefined && at > cmd.received_at) {
          v.push({
            kind: 'ran-after-stop',
            detail:
              `${m.id} ${/tag:[\w-]+/.exec(m.text)?.[0] ?? ''} in ${m.conversation_id} (${m.state}) ` +
              `was sent before ${JSON.stringify(cmd.text)} yet ran in a turn ` +
              `started ${at - cmd.received_at} ms after it`,
          });
        }
      }
    }

    // What the slow platform received: each reply once, in its own conversation, and nothing the store does not know.
    const delivered: SlowDelivery[] = fs.existsSync(slowLog)
      ? fs
          .readFileSync(slowLog, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
    const seen = new Map<string, number>();
    const byId = new Map(outbox.map((o) => [o.id, o]));
    for (const d of delivered) {
      seen.set(d.outboxId, (seen.get(d.outboxId) ?? 0) + 1);
      const o = byId.get(d.outboxId);
      if (!o)
        v.push({
          kind: 'wrong-conversation',
          detail: `the slow platform received ${d.outboxId}, which the store does not have`,
        });
      else if (
        conversations.get(o.conversation_id) !== d.conversationKey ||
        !o.conversation_id.startsWith(`${SLOW_CHANNEL}:`)
      )
        v.push({
          kind: 'wrong-conversation',
          detail: `${d.outboxId} of ${o.conversation_id} reached slow conversation ${d.conversationKey}`,
        });
    }
    for (const [id, n] of seen)
      if (n > 1) v.push({ kind: 'duplicated', detail: `the slow platform received ${id} ${n} times` });
    for (const o of outbox)
      if (o.conversation_id.startsWith(`${SLOW_CHANNEL}:`) && o.delivered_at !== null && !seen.has(o.id))
        v.push({ kind: 'lost', detail: `${o.id} is marked delivered but the slow platform never received it` });

    const states: Record<string, number> = {};
    for (const m of messages.values()) states[m.state] = (states[m.state] ?? 0) + 1;
    return { violations: v, states };
  } finally {
    db.close();
  }
}

/** Agent processes the store still lists as running after a clean stop. */
export function trackedProcesses(dbFile: string): number[] {
  // A run that broke before the gateway made its store has none (the break itself is reported).
  if (!fs.existsSync(dbFile)) return [];
  const db = new Database(dbFile, { readonly: true });
  try {
    return (db.prepare('SELECT pid FROM agent_processes').all() as Array<{ pid: number }>).map((r) => r.pid);
  } finally {
    db.close();
  }
}

/** Each input a rate limit held reaches the model once, read from the mock's request log. */
export function checkModelInputs(dbFile: string, requests: Array<{ side: boolean; body: unknown }>): Violation[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    const turns = db.prepare("SELECT input_ids FROM turns WHERE error = 'AGENT_RATE_LIMITED'").all() as Array<{
      input_ids: string;
    }>;
    const held = new Set(turns.flatMap((t) => JSON.parse(t.input_ids) as string[]));
    // A message cut off by a crash or a restart runs again with its text on purpose (the agent may
    // not have it); the person was told so with a ↻ notice.
    const notices = db
      .prepare("SELECT message_ids FROM outbox WHERE kind = 'notice' AND text LIKE '↻%'")
      .all() as Array<{ message_ids: string }>;
    const resent = new Set(notices.flatMap((n) => JSON.parse(n.message_ids) as string[]));
    const tags = new Map<string, string>();
    for (const id of held) {
      if (resent.has(id)) continue;
      const row = db.prepare('SELECT text, conversation_id FROM messages WHERE id = ?').get(id) as
        | { text: string; conversation_id: string }
        | undefined;
      const tag = row && /tag:[\w-]+/.exec(row.text)?.[0];
      if (tag) tags.set(tag, `${id} ${tag} in ${row.conversation_id}`);
    }
    const v: Violation[] = [];
    const main = requests.filter((r) => !r.side);
    for (const [tag, where] of tags) {
      const mark = new RegExp(`${tag}(?![\\w-])`);
      const worst = Math.max(0, ...main.map((r) => wrappedTexts(r as never).filter((t) => mark.test(t)).length));
      if (worst > 1)
        v.push({
          kind: 'duplicated',
          detail: `${where} was held by a rate limit and reached the model ${worst} times in one request`,
        });
    }
    return v;
  } finally {
    db.close();
  }
}
