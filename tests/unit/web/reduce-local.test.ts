/** A resend that the gateway calls a duplicate takes its real id, once (web/src/reduce-local.ts). */
import { describe, expect, it } from 'vitest';
import { emptyConversation } from '../../../web/src/reduce.js';
import { addLocal, confirmLocal, failLocal } from '../../../web/src/reduce-local.js';

describe('a resend', () => {
  it('that the gateway had already (a lost answer) takes the real id, once', () => {
    let c = addLocal(emptyConversation('c'), 'web-1', 'hello', 5);
    c = failLocal(c, 'web-1', 'offline', 'not sent yet');
    c = confirmLocal(c, 'web-1', 'm9', 'duplicate');
    expect([...c.messages.values()].map((x) => [x.id, x.state, x.local, x.unsent])).toEqual([
      ['m9', 'accepted', undefined, undefined],
    ]);
  });
});
