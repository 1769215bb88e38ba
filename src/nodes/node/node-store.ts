/**
 * A node's own small store, beside its conversations and session ids (the regular store in its
 * data dir): the commands it has taken (by message id, so a redelivery is done once), the turns
 * in flight and the steers not yet settled (so a restart reports each of them to the front: a
 * turn cut off, a steer not taken in). Writes commit at once (no group commit on a node), so a
 * command is acknowledged only after it is stored.
 */
import type { Db } from '../../store/db.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS node_commands (
  msg_id TEXT PRIMARY KEY,
  at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS node_turns (
  turn_id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL,
  input_ids TEXT NOT NULL,
  state TEXT NOT NULL,             -- running | ended
  started_at INTEGER NOT NULL,
  ended_at INTEGER
);
CREATE INDEX IF NOT EXISTS node_turns_running ON node_turns (state) WHERE state = 'running';
CREATE TABLE IF NOT EXISTS node_steers (
  input_id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL,
  state TEXT NOT NULL              -- pending | done
);
`;

/** Commands remembered this long (well past the stream's duplicate window and a node's restart). */
const COMMAND_MEMORY_MS = 7 * 24 * 3600_000;

export interface NodeTurn {
  turnId: string;
  conversationId: string;
  inputIds: string[];
  state: 'running' | 'ended';
}

export class NodeStore {
  constructor(private readonly db: Db) {
    db.exec(SCHEMA);
    db.prepare('DELETE FROM node_commands WHERE at < ?').run(Date.now() - COMMAND_MEMORY_MS);
  }

  /** Records a command as taken; false when it was taken before (a redelivery). */
  take(msgId: string): boolean {
    return (
      this.db.prepare('INSERT OR IGNORE INTO node_commands (msg_id, at) VALUES (?, ?)').run(msgId, Date.now())
        .changes === 1
    );
  }

  turn(turnId: string): NodeTurn | undefined {
    const r = this.db.prepare('SELECT * FROM node_turns WHERE turn_id = ?').get(turnId) as Row | undefined;
    return r && toTurn(r);
  }

  turnStarted(turnId: string, conversationId: string, inputIds: string[]): void {
    this.db
      .prepare(
        `INSERT OR IGNORE INTO node_turns (turn_id, conversation_id, input_ids, state, started_at)
         VALUES (?, ?, ?, 'running', ?)`,
      )
      .run(turnId, conversationId, JSON.stringify(inputIds), Date.now());
  }

  /** An input the running turn took in (a steer): a restart names it among the turn's unanswered inputs. */
  turnInputs(turnId: string, inputIds: string[]): void {
    this.db.prepare('UPDATE node_turns SET input_ids = ? WHERE turn_id = ?').run(JSON.stringify(inputIds), turnId);
  }

  turnEnded(turnId: string): void {
    this.db.prepare("UPDATE node_turns SET state = 'ended', ended_at = ? WHERE turn_id = ?").run(Date.now(), turnId);
  }

  running(): NodeTurn[] {
    return (this.db.prepare("SELECT * FROM node_turns WHERE state = 'running'").all() as Row[]).map(toTurn);
  }

  steerTaken(inputId: string, conversationId: string): void {
    this.db
      .prepare("INSERT OR IGNORE INTO node_steers (input_id, conversation_id, state) VALUES (?, ?, 'pending')")
      .run(inputId, conversationId);
  }

  steerSettled(inputId: string): void {
    this.db.prepare("UPDATE node_steers SET state = 'done' WHERE input_id = ?").run(inputId);
  }

  pendingSteers(): Array<{ inputId: string; conversationId: string }> {
    return (
      this.db.prepare("SELECT input_id, conversation_id FROM node_steers WHERE state = 'pending'").all() as Array<{
        input_id: string;
        conversation_id: string;
      }>
    ).map((r) => ({ inputId: r.input_id, conversationId: r.conversation_id }));
  }
}

interface Row {
  turn_id: string;
  conversation_id: string;
  input_ids: string;
  state: 'running' | 'ended';
}

function toTurn(r: Row): NodeTurn {
  return {
    turnId: r.turn_id,
    conversationId: r.conversation_id,
    inputIds: JSON.parse(r.input_ids) as string[],
    state: r.state,
  };
}
