/**
 * Routing a committed message: the one parser says what it is, then the owner check. Commands and
 * permission answers run here, for owners only; a voice note waits for its transcription in its
 * place in line; everything else goes to its lane. Recovery routes what a restart found accepted.
 */
import type { AcceptResult } from '../../channels/channel.js';
import { discardAttachments } from '../../channels/common/attachments.js';
import { isVoiceNotSetUp, transcribe } from '../../channels/voice.js';
import type { LiveConfig } from '../../config/load.js';
import { isRudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { AccessControl } from '../../security/access.js';
import type { Store } from '../../store/store.js';
import { isJobMessage, type MessageRow } from '../../store/types.js';
import type { EventBus } from '../bus.js';
import type { Commands } from '../commands/commands.js';
import { type ParsedCommand, type ParsedInput, parseInput } from '../commands/parse.js';
import type { Conversations } from '../conversations/conversations.js';
import { sourceOf } from '../lane/agent-text.js';
import type { PermissionDesk } from '../permissions/desk.js';
import type { Replies } from '../replies/replies.js';

/** What a committed message is, for its sender. */
export type Decision = ParsedInput | { kind: 'not-owner'; command: ParsedCommand };

/** Commands after which the command's own message shows ⏹: it ended what was running. */
const STOPPING = new Set(['stop', 'clear', 'new']);

export interface RouterDeps {
  config: LiveConfig;
  store: Store;
  access: AccessControl;
  conversations: Conversations;
  commands: Commands;
  desk: PermissionDesk;
  replies: Replies;
  /** A voice note's transcript is told to the page as it is ready. */
  bus: EventBus;
  log: Logger;
}

export class Router {
  constructor(private readonly d: RouterDeps) {}

  decide(row: MessageRow): Decision {
    // A schedule's or a webhook's text is for the agent, whatever it looks like ("/push" in a PR comment).
    if (isJobMessage(row)) return { kind: 'text' };
    const input = parseInput(row.text, !!this.d.desk.pending(row.conversationId));
    if (input.kind === 'text' || this.d.access.isOwner(row.channel, row.senderId)) return input;
    if (input.kind === 'command') return { kind: 'not-owner', command: input.command };
    // A member's bare number is not an answer to the owner's permission request: it is text.
    return { kind: 'text' };
  }

  isVoice(row: MessageRow): boolean {
    return !!voiceOf(row);
  }

  async route(row: MessageRow, decided: Decision = this.decide(row)): Promise<AcceptResult> {
    if (decided.kind === 'not-owner') return this.refuseCommand(row, decided.command);
    if (decided.kind !== 'text') return this.runCommand(row, decided);
    const voice = voiceOf(row);
    if (voice) return this.transcribeFirst(row, voice.path);
    const ticket = this.d.conversations.lane(row.conversationId).accept(row);
    await this.d.store.committed();
    return { messageId: row.id, disposition: ticket.disposition };
  }

  /** Refused, never passed to the agent as text either; a caption's files go with it. */
  private async refuseCommand(row: MessageRow, command: ParsedCommand): Promise<AcceptResult> {
    const { store, log, replies } = this.d;
    const { attachments, ...kept } = row.extra;
    await discardAttachments(attachments);
    if (attachments) store.inbox.setExtra(row.id, kept);
    store.inbox.refuse(row.id, 'command-owner-only');
    log.info(
      { conversationId: row.conversationId, messageId: row.id, command: command.name },
      'command from a non-owner refused',
    );
    replies.send(row.conversationId, 'notice', 'Only the owner can use commands here.', [row]);
    return { messageId: row.id, disposition: 'refused', reason: 'command-owner-only' };
  }

  private async runCommand(row: MessageRow, decided: Exclude<ParsedInput, { kind: 'text' }>): Promise<AcceptResult> {
    const { store, commands, replies } = this.d;
    store.inbox.command(row.id);
    const call = {
      conversationId: row.conversationId,
      sentAt: row.sentAt ?? row.receivedAt,
      by: sourceOf(row),
      messageId: row.id,
      group: row.extra.chatType === 'group',
    };
    const outcome =
      decided.kind === 'command'
        ? await commands.run(decided.command, call)
        : {
            reply:
              commands.answerPermission(row.conversationId, decided.option, call.by) ??
              'No permission request is waiting.',
            stopped: [],
          };
    for (const r of outcome.stopped ?? []) replies.ack(r, 'stopped');
    // The notice below answers this very message: the ⏹ beside it is a reaction at most.
    if (decided.kind === 'command' && STOPPING.has(decided.command.name))
      replies.ack(row, 'stopped', undefined, { reactionOnly: true });
    // A question with buttons (/discard) answers the command itself; the rest follow the reply in order.
    for (const text of [outcome.reply, ...(outcome.more ?? [])])
      if (text) replies.send(row.conversationId, 'notice', text, [row]);
    return { messageId: row.id, disposition: 'command' };
  }

  /** Transcription takes a while; the message keeps its place in line meanwhile. */
  private transcribeFirst(row: MessageRow, file: string): AcceptResult {
    const { store, replies, conversations, config } = this.d;
    const place = conversations.lane(row.conversationId).waitInPlace(row);
    void transcribe(file, config.current().stt).then(
      (transcript) => {
        const extra = { ...row.extra, transcript };
        store.inbox.setExtra(row.id, extra);
        this.d.bus.emit(row.conversationId, 'message', row.id, { state: 'queued', transcript });
        place.ready({ ...row, extra });
      },
      (err) => {
        const text = isVoiceNotSetUp(err)
          ? String((err as { context: { userText: string } }).context.userText)
          : `The voice note could not be transcribed: ${isRudderError(err) ? err.message : String(err)}`;
        store.inbox.fail([row.id], isVoiceNotSetUp(err) ? 'speech-to-text is not configured' : 'transcription failed');
        replies.send(row.conversationId, 'notice', text, [row]);
        place.drop();
      },
    );
    return { messageId: row.id, disposition: 'queued', reason: 'transcribing the voice note' };
  }
}

function voiceOf(row: MessageRow) {
  return row.extra.attachments?.find((a) => a.kind === 'voice' || a.kind === 'audio');
}
