/**
 * The scheduler's decisions carried out in the gateway: a slot's run enters through the door (intake/entry.ts) as a
 * message from `schedule:<name>` into the conversation its schedule names (schedules/targets.ts), made first with
 * its title and project, the slot's row stored in the message's transaction; what the schedule says outside a run
 * goes to its home as a notice; a run past its timeout is stopped the one way a turn is stopped (commands/stop.ts),
 * or, still waiting, withdrawn, and the notice says why.
 */
import type { Logger } from '../../ops/logger.js';
import type { Projects } from '../../projects/service.js';
import type { ScheduleDef } from '../../schedules/definitions.js';
import { quietPrompt } from '../../schedules/quiet.js';
import type { RunDoor, StartedRun } from '../../schedules/scheduler.js';
import { homeOf, runPlace } from '../../schedules/targets.js';
import type { FiringRow } from '../../store/schedule-firings.js';
import type { Store } from '../../store/store.js';
import type { EventBus } from '../bus.js';
import type { Stopper } from '../commands/stop.js';
import { withdrawMessage } from '../commands/waiting.js';
import type { Conversations } from '../conversations/conversations.js';
import type { Entry } from '../intake/entry.js';
import type { Replies } from '../replies/replies.js';
import { ensureJobConversation } from './conversation.js';

export interface ScheduleDoorDeps {
  store: Store;
  entry: Entry;
  projects: Projects;
  replies: Replies;
  stopper: Stopper;
  conversations: Conversations;
  bus: EventBus;
  log: Logger;
}

export class ScheduleDoor implements RunDoor {
  constructor(private readonly d: ScheduleDoorDeps) {}

  async run(def: ScheduleDef, slot: number, startedAt: number): Promise<StartedRun | undefined> {
    const place = runPlace(def, slot);
    ensureJobConversation(this.d, place, def.project);
    if (place.copyTo) ensureJobConversation(this.d, homeOf(def), undefined);
    const { store } = this.d;
    const r = await this.d.entry.job({
      conversationId: place.conversationId,
      tag: {
        kind: 'schedule',
        name: def.name,
        slot,
        ...(def.quiet ? { quiet: true } : {}),
        ...(place.copyTo ? { copyTo: place.copyTo, copyHeading: place.copyHeading } : {}),
      },
      id: String(slot),
      text: def.quiet ? quietPrompt(def.prompt) : def.prompt,
      record: (row) => {
        const f = { schedule: def.name, slot, state: 'running' as const, messageId: row.id, startedAt };
        store.firings.insert({ ...f, conversationId: place.conversationId });
      },
    });
    if (r.duplicate) return undefined;
    return { messageId: r.messageId, conversationId: place.conversationId };
  }

  tell(def: ScheduleDef, text: string): void {
    const home = homeOf(def);
    ensureJobConversation(this.d, home, def.project);
    this.d.replies.send(home.conversationId, 'notice', text, []);
  }

  /** Running (or handed to the running turn): stopped as /stop stops it. Still waiting: withdrawn. */
  async stop(_def: ScheduleDef, run: FiringRow, text: string): Promise<void> {
    const { store, stopper, replies } = this.d;
    const row = run.messageId ? store.message(run.messageId) : undefined;
    if (!row || !run.conversationId) return;
    if (row.state === 'queued' || row.state === 'deferred') {
      withdrawMessage(this.d, run.conversationId, row.id);
      return replies.send(run.conversationId, 'notice', `${text} It had not started yet.`, [row]);
    }
    const stopped = await stopper.stop(run.conversationId, Date.now());
    for (const r of stopped.dropped) replies.ack(r, 'stopped');
    replies.send(run.conversationId, 'notice', `${text} ${stopped.reply}`, [row]);
  }
}
