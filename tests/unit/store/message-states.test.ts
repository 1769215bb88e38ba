/**
 * A message's state changes only through the named transitions of src/store/message-states.ts, each
 * allowed from the states its table lists: on a real SQLite store, a terminal message never changes.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allowed, TRANSITIONS, type Transition } from '../../../src/store/message-states.js';
import { Store } from '../../../src/store/store.js';
import { type MessageState, OPEN_STATES } from '../../../src/store/types.js';
import { tempDir } from '../../support/claude-rig.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

let n = 0;
function messageIn(s: Store, state: MessageState): string {
  const { row } = s.insertMessage({
    conversationId: 'web:t',
    channel: 'web',
    platformMessageId: `p${++n}`,
    senderId: 'owner',
    text: 'x',
    state,
  });
  return row.id;
}

function move(s: Store, t: Transition, id: string): void {
  const i = s.inbox;
  const calls: Record<Transition, () => void> = {
    queue: () => i.queue([id]),
    run: () => i.run([id], 'turn'),
    steer: () => i.steer(id, 'turn'),
    ranAsTurn: () => i.ranAsTurn(id, 'turn', 'ran'),
    answer: () => i.answer([id]),
    steered: () => i.steered([id]),
    merge: () => i.merge([id]),
    hold: () => i.hold([id], Date.now() + 1000, 'agent-terminal', 'held'),
    stop: () => i.stop([id], 'stopped'),
    fail: () => i.fail([id], 'failed'),
    withdraw: () => i.withdraw(id, 'withdrawn'),
    refuse: () => i.refuse(id, 'refused'),
    command: () => i.command(id),
  };
  calls[t]();
}

const ALL: MessageState[] = [
  ...OPEN_STATES,
  'answered',
  'steered',
  'merged',
  'refused',
  'failed',
  'stopped',
  'withdrawn',
  'command',
];

describe('message state transitions', () => {
  it('each transition moves a message exactly from the states its table lists, and from no other', () => {
    store = new Store(path.join(tempDir('states'), 'rudder.db'));
    for (const t of Object.keys(TRANSITIONS) as Transition[]) {
      for (const from of ALL) {
        const id = messageIn(store, from);
        move(store, t, id);
        const after = store.message(id)!.state;
        expect([t, from, after]).toEqual([t, from, allowed(t, from) ? TRANSITIONS[t].to : from]);
      }
    }
  });

  it('no transition reopens a terminal message', () => {
    const terminal = ALL.filter((s) => !OPEN_STATES.includes(s));
    for (const t of Object.keys(TRANSITIONS) as Transition[])
      for (const from of terminal) expect([t, from, allowed(t, from)]).toEqual([t, from, false]);
  });

  it('a hold records why (held_for) and until when', () => {
    store = new Store(path.join(tempDir('states'), 'rudder.db'));
    const id = messageIn(store, 'running');
    store.inbox.hold([id], 123, 'rate-limit-estimated', 'rate limited (reset time estimated)');
    expect(store.message(id)).toMatchObject({ state: 'deferred', heldFor: 'rate-limit-estimated', retryAt: 123 });
  });
});
