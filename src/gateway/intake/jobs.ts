/**
 * A job: a message from a source that is not a person (a schedule's slot, a webhook's delivery), as the one door
 * takes it (Entry.job). It is stored like a person's message (deduplicated by its source and id), wrapped as
 * external content from `<kind>:<name>`, never read as a command or a permission answer, and handed to the lane.
 */
import type { JobTag, MessageRow } from '../../store/types.js';
import type { Ticket } from '../lane/steer.js';

export interface JobMessage {
  /** The conversation it goes to; the caller has made it (its title, its project). */
  conversationId: string;
  /** Where it came from: `schedule:<name>` or `hook:<name>` to the agent. */
  tag: JobTag;
  /** Unique per source: the slot, the delivery's key. A second job with the same id is a duplicate. */
  id: string;
  /** What the agent reads (untrusted for a webhook: it came from a payload). */
  text: string;
  /** Written in the message's transaction (the slot fired, the delivery seen); not called for a duplicate. */
  record?(row: MessageRow): void;
}

export type JobAccepted =
  | { duplicate: false; messageId: string; disposition: Ticket['disposition'] }
  | { duplicate: true; messageId: string };

/** The platform id a job's message is stored under: unique per source kind, as the inbox deduplicates. */
export function jobMessageId(tag: JobTag, id: string): string {
  return `${tag.name}:${id}`;
}
