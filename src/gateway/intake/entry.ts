/**
 * The step every message takes through the door, a person's (intake.ts, after its checks) and a job's (a schedule's
 * slot, a webhook's delivery): in one transaction, the row (deduplicated by its channel and platform id), its
 * 'received' event, and what the caller decides for it (for text, the lane's decision). Nothing of it is handed to
 * the agent before the commit: the lane hands over in store.afterCommit.
 *
 * A job is stored with its source's kind as the channel (`schedule`, `hook`) and its name as the sender, so it reaches
 * the agent wrapped as external content from `schedule:<name>` or `hook:<name>`; it is never a command or a
 * permission answer, whatever its text says, and has no platform message to react or reply to.
 */
import type { NewMessage } from '../../store/inbox.js';
import type { Store } from '../../store/store.js';
import type { MessageRow } from '../../store/types.js';
import type { EventBus } from '../bus.js';
import type { Conversations } from '../conversations/conversations.js';
import { ackData } from '../replies/replies.js';
import { type JobAccepted, type JobMessage, jobMessageId } from './jobs.js';
import { withoutNul } from './text-checks.js';

export interface EntryDeps {
  store: Store;
  bus: EventBus;
  conversations: Conversations;
}

export type Entered<T> = { row: MessageRow; duplicate: true } | { row: MessageRow; duplicate: false; decided: T };

export class Entry {
  constructor(private readonly d: EntryDeps) {}

  /** The message, its 'received' event and `decide`'s decision, in one transaction; a redelivery decides nothing. */
  enter<T>(m: NewMessage, decide: (row: MessageRow) => T): Entered<T> {
    const { store, bus } = this.d;
    return store.tx((): Entered<T> => {
      const r = store.insertMessage(m);
      if (r.duplicate) return { row: r.row, duplicate: true };
      bus.publish(store.appendEvent(m.conversationId, 'ack', r.row.id, ackData('received')));
      return { row: r.row, duplicate: false, decided: decide(r.row) };
    });
  }

  /**
   * A job, as a person's text goes: stored with what its source records beside it (the slot fired, the delivery
   * seen) and handed to its lane, in one transaction; resolves once that is committed.
   */
  async job(job: JobMessage): Promise<JobAccepted> {
    const { store } = this.d;
    const lane = this.d.conversations.lane(job.conversationId);
    const message: NewMessage = {
      conversationId: job.conversationId,
      channel: job.tag.kind,
      platformMessageId: jobMessageId(job.tag, job.id),
      senderId: job.tag.name,
      text: withoutNul(job.text),
      extra: { job: job.tag },
      sentAt: Date.now(),
      state: 'accepted',
    };
    const r = this.enter(message, (row) => {
      job.record?.(row);
      return lane.accept(row);
    });
    await store.committed();
    if (r.duplicate) return { duplicate: true, messageId: r.row.id };
    return { duplicate: false, messageId: r.row.id, disposition: r.decided.disposition };
  }
}
