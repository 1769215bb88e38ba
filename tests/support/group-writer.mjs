#!/usr/bin/env node
// Writes messages into a store with store.groupCommit in batches, one batch per event-loop turn,
// and prints each batch's platform ids once store.committed() says they are stored (as the
// gateway acknowledges a message). The parent kills it with -9 at a random moment and checks
// that every printed id is in the database. argv: the database file.
import { Store } from '../../dist/store/store.js';

const store = new Store(process.argv[2], { groupCommit: true });
store.ensureConversation('web:c', 'web', 'c');
let n = 0;
for (;;) {
  const ids = [];
  for (let i = 0; i < 100; i++) {
    const id = `p${n++}`;
    store.insertMessage({
      conversationId: 'web:c',
      channel: 'web',
      platformMessageId: id,
      senderId: 'owner',
      text: `message ${id} ${'x'.repeat(200)}`,
      state: 'accepted',
    });
    store.appendEvent('web:c', 'ack', null, { kind: 'received', id });
    ids.push(id);
  }
  await store.committed();
  // Pipes are synchronous on Linux: the line is out before the next batch begins.
  process.stdout.write(`${ids.join(' ')}\n`);
}
