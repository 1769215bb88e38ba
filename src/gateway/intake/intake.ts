/**
 * Intake: the one door every inbound message and button press goes through (the channels' sink).
 * A message is checked against access control, its text (text-checks.ts) and the /stop cutoff,
 * committed to the inbox before the channel is acknowledged (deduplicated by channel + platform
 * message id), then routed (route.ts): a command or a permission answer runs only for an owner;
 * everything else goes to its lane. A button press is routed by presses.ts. The step every message takes, a
 * person's and a job's (a schedule's slot, a webhook's delivery), is entry.ts: stored, told, decided, one commit.
 */
import type { AcceptResult, InboundMessage, InboundPress, InboundSink, PressResult } from '../../channels/channel.js';
import { discardAttachments } from '../../channels/common/attachments.js';
import type { Logger } from '../../ops/logger.js';
import type { AccessControl } from '../../security/access.js';
import type { Store } from '../../store/store.js';
import { parseInput } from '../commands/parse.js';
import type { Conversations } from '../conversations/conversations.js';
import type { Lane } from '../lane/lane.js';
import type { Replies } from '../replies/replies.js';
import type { Entry } from './entry.js';
import type { Presses } from './presses.js';
import type { Router } from './route.js';
import { TEXT_REFUSAL, textProblem, withoutNul } from './text-checks.js';

export function conversationIdOf(channel: string, key: string): string {
  return `${channel}:${key}`;
}

export interface IntakeDeps {
  store: Store;
  /** The step every message takes: stored with its 'received' event and decided in one transaction. */
  entry: Entry;
  access: AccessControl;
  conversations: Conversations;
  replies: Replies;
  router: Router;
  presses: Presses;
  log: Logger;
}

export class Intake implements InboundSink {
  constructor(private readonly d: IntakeDeps) {}

  /** Resolves once the message is committed: the channel acknowledges it to the platform then. */
  async accept(msg: InboundMessage): Promise<AcceptResult> {
    const result = await this.admit(msg);
    await this.d.store.committed();
    return result;
  }

  admits(msg: InboundMessage): boolean {
    return this.d.access.admits(msg);
  }

  press(p: InboundPress): Promise<PressResult> {
    return this.d.presses.press(p, conversationIdOf(p.channel, p.conversationKey));
  }

  private async admit(msg: InboundMessage): Promise<AcceptResult> {
    const { store, access, log } = this.d;
    const conversationId = conversationIdOf(msg.channel, msg.conversationKey);
    const conv = store.ensureConversation(conversationId, msg.channel, msg.conversationKey);
    const extra = contextOf(msg);
    const base = {
      conversationId,
      channel: msg.channel,
      platformMessageId: msg.platformMessageId,
      senderId: msg.sender.id,
      text: msg.text,
      extra,
      sentAt: msg.sentAt,
    };
    const refuse = async (reason: string, reply?: string): Promise<AcceptResult> => {
      // A refused message keeps no files, gone before its refusal is recorded. A redelivery of an
      // admitted message shares that message's files: they stay.
      const earlier = store.messageByPlatformId(msg.channel, msg.platformMessageId);
      if (!earlier || earlier.state === 'refused') await discardAttachments(msg.attachments);
      const { attachments: _files, ...kept } = extra;
      const { row, duplicate } = store.insertMessage({ ...base, extra: kept, state: 'refused', reason });
      if (duplicate) return { messageId: row.id, disposition: 'duplicate' };
      log.info({ conversationId, messageId: row.id, reason }, 'message refused');
      if (reply) this.d.replies.send(conversationId, 'notice', reply, [row]);
      return { messageId: row.id, disposition: 'refused', reason };
    };

    const allowed = access.check(msg);
    if (!allowed.allowed) return refuse(allowed.reason, allowed.reply);
    const problem = textProblem(msg.text);
    // A message without text (a photo, a voice note) is fine: only what cannot reach the agent is refused.
    if (problem && problem !== 'empty') return refuse(problem, TEXT_REFUSAL[problem]);

    const lane = this.d.conversations.lane(conversationId);
    const edited = this.applyEdit(msg, lane);
    if (edited) return edited;
    if (conv.cutoffAt && msg.sentAt && msg.sentAt < conv.cutoffAt) return refuse('sent-before-stop');

    // One commit holds the message, its 'received' event and, for plain text, the lane's decision
    // (the turn start or the queue entry): acknowledged means stored, and a message costs few commits.
    const { router } = this.d;
    const r = this.d.entry.enter({ ...base, state: 'accepted' }, (row) => {
      this.d.replies.channelAck(row, 'received'); // before the lane's own ack, so reactions land in order
      const decided = router.decide(row);
      const ticket = decided.kind === 'text' && !router.isVoice(row) ? lane.accept(row) : undefined;
      return { decided, ticket };
    });
    if (r.duplicate) return { messageId: r.row.id, disposition: 'duplicate' };
    if (!r.decided.ticket) return router.route(r.row, r.decided.decided);
    // A steer is settled once the message is committed (it was handed over then, or it waits in line).
    await this.d.store.committed();
    return { messageId: r.row.id, disposition: r.decided.ticket.disposition };
  }

  /** Only its author's edit into plain text replaces a waiting message; anything else is a new message. */
  private applyEdit(msg: InboundMessage, lane: Lane): AcceptResult | undefined {
    if (!msg.editOf) return undefined;
    const { store } = this.d;
    const original = store.messageByPlatformId(msg.channel, msg.editOf);
    const replaceable =
      original?.state === 'queued' &&
      original.senderId === msg.sender.id &&
      parseInput(msg.text, false).kind === 'text';
    if (!replaceable || !lane.replaceQueued(original.id, msg.text)) return undefined;
    store.inbox.updateText(original.id, msg.text);
    return { messageId: original.id, disposition: 'queued', reason: 'edit applied to the waiting message' };
  }
}

/** Context the person did not type (a quoted message, a display name) loses its NUL instead of the message. */
function contextOf(msg: InboundMessage) {
  return {
    senderName: msg.sender.name === undefined ? undefined : withoutNul(msg.sender.name),
    chatType: msg.chatType,
    ...(msg.quoted
      ? {
          quoted: {
            ...msg.quoted,
            text: withoutNul(msg.quoted.text),
            ...(msg.quoted.author ? { author: withoutNul(msg.quoted.author) } : {}),
          },
        }
      : {}),
    ...(msg.attachments?.length ? { attachments: msg.attachments } : {}),
  };
}
