/**
 * Intake: the one door every inbound message goes through. It is checked against access control,
 * the size limit and the /stop cutoff, committed to the inbox before the channel is acknowledged
 * (deduplicated by channel + platform message id), then routed: parseInput() says what it is, and
 * a command or a permission answer runs only for an owner; everything else goes to its lane.
 */
import type { AcceptResult, InboundMessage } from '../channels/channel.js';
import { discardAttachments } from '../channels/common/attachments.js';
import { isVoiceNotSetUp, transcribe } from '../channels/voice.js';
import { isRudderError } from '../errors.js';
import type { MessageRow } from '../store/types.js';
import { type ParsedCommand, type ParsedInput, parseInput, runCommand } from './commands.js';
import { sourceOf } from './compose.js';
import { ackData, type GatewayCore } from './core.js';
import type { Disposition } from './lane.js';

/** Text longer than this is refused, with the reason, instead of being passed on. */
export const MAX_TEXT_BYTES = 100 * 1024;

/** No process argument or stream to the agent can carry a NUL: a message with one is refused at the door. */
export const NUL_TEXT_REPLY =
  'That message contains a NUL character (\\0), which cannot be passed to the agent; it was not passed on. ' +
  'Remove the character and send it again.';
const noNul = (s: string) => s.replaceAll('\0', '\uFFFD');

export function conversationIdOf(channel: string, key: string): string {
  return `${channel}:${key}`;
}

export async function acceptInbound(core: GatewayCore, msg: InboundMessage): Promise<AcceptResult> {
  const { store } = core;
  const conversationId = conversationIdOf(msg.channel, msg.conversationKey);
  const conv = store.ensureConversation(conversationId, msg.channel, msg.conversationKey);

  // Context the person did not type (a quoted message, a display name) loses its NUL instead of the message.
  const extra = {
    senderName: msg.sender.name === undefined ? undefined : noNul(msg.sender.name),
    chatType: msg.chatType,
    ...(msg.quoted
      ? {
          quoted: {
            ...msg.quoted,
            text: noNul(msg.quoted.text),
            ...(msg.quoted.author ? { author: noNul(msg.quoted.author) } : {}),
          },
        }
      : {}),
    ...(msg.attachments?.length ? { attachments: msg.attachments } : {}),
  };
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
    core.log.info({ conversationId, messageId: row.id, reason }, 'message refused');
    if (reply) core.send(conversationId, 'notice', reply, [row]);
    return { messageId: row.id, disposition: 'refused', reason };
  };

  const access = core.access.check(msg);
  if (!access.allowed) return refuse(access.reason, access.reply);
  if (msg.text.includes('\0')) return refuse('nul-character', NUL_TEXT_REPLY);
  if (Buffer.byteLength(msg.text, 'utf8') > MAX_TEXT_BYTES) {
    return refuse(
      'text-too-long',
      `That message is longer than ${MAX_TEXT_BYTES / 1024} KB and was not passed on. Send it as a file, or in parts.`,
    );
  }

  if (msg.editOf) {
    const original = store.messageByPlatformId(msg.channel, msg.editOf);
    // Only its author's edit into plain text replaces a waiting message; anything else is a new message.
    const replaceable =
      original?.state === 'queued' &&
      original.senderId === msg.sender.id &&
      parseInput(msg.text, false).kind === 'text';
    if (replaceable && core.lane(conversationId).replaceQueued(original.id, msg.text)) {
      store.updateText(original.id, msg.text);
      return { messageId: original.id, disposition: 'queued', reason: 'edit applied to the waiting message' };
    }
  }
  if (conv.cutoffAt && msg.sentAt && msg.sentAt < conv.cutoffAt) return refuse('sent-before-stop');

  // One commit holds the message, its 'received' event and, for plain text, the lane's decision
  // (the turn start or the queue entry): acknowledged means stored, and a message costs few commits.
  let disposition: Disposition | undefined;
  let decided: Decision | undefined;
  const { row, duplicate } = store.tx(() => {
    const r = store.insertMessage({ ...base, state: 'accepted' });
    if (r.duplicate) return r;
    core.bus.publish(store.appendEvent(conversationId, 'ack', r.row.id, ackData('received')));
    core.channelAck(r.row, 'received'); // before the lane's own ack, so reactions land in order
    decided = decide(core, r.row);
    if (decided.kind === 'text' && !voiceOf(r.row)) disposition = core.lane(conversationId).accept(r.row);
    return r;
  });
  if (duplicate) return { messageId: row.id, disposition: 'duplicate' };
  return disposition ? { messageId: row.id, disposition } : route(core, row, decided);
}

/** What a committed message is, for its sender: the one parser decides, then the owner check. */
type Decision = ParsedInput | { kind: 'not-owner'; command: ParsedCommand };

function decide(core: GatewayCore, row: MessageRow): Decision {
  const input = parseInput(row.text, !!core.pendingPermission(row.conversationId));
  if (input.kind === 'text' || core.access.isOwner(row.channel, row.senderId)) return input;
  if (input.kind === 'command') return { kind: 'not-owner', command: input.command };
  // A member's bare number is not an answer to the owner's permission request: it is text.
  return { kind: 'text' };
}

function voiceOf(row: MessageRow) {
  return row.extra.attachments?.find((a) => a.kind === 'voice' || a.kind === 'audio');
}

/** Routes a committed message: commands run here (for owners only); everything else goes to its lane. */
export async function route(
  core: GatewayCore,
  row: MessageRow,
  decided: Decision = decide(core, row),
): Promise<AcceptResult> {
  const lane = core.lane(row.conversationId);
  if (decided.kind === 'not-owner') {
    // Refused, never passed to the agent as text either; a caption's files go with it.
    const { attachments, ...kept } = row.extra;
    await discardAttachments(attachments);
    if (attachments) core.store.setExtra(row.id, kept);
    core.store.setState([row.id], 'refused', 'command-owner-only');
    core.log.info(
      { conversationId: row.conversationId, messageId: row.id, command: decided.command.name },
      'command from a non-owner refused',
    );
    core.send(row.conversationId, 'notice', 'Only the owner can use commands here.', [row]);
    return { messageId: row.id, disposition: 'refused', reason: 'command-owner-only' };
  }
  if (decided.kind !== 'text') {
    core.store.setState([row.id], 'command');
    const ctx = core.commandContext(row.conversationId, row.sentAt ?? row.receivedAt, sourceOf(row));
    const outcome =
      decided.kind === 'command'
        ? await runCommand(decided.command, ctx)
        : { reply: ctx.answerPermission(decided.option) ?? 'No permission request is waiting.', stopped: [] };
    for (const r of outcome.stopped ?? []) core.ack(r, 'stopped');
    const name = decided.kind === 'command' ? decided.command.name : '';
    if (name === 'stop' || name === 'clear' || name === 'new') core.ack(row, 'stopped');
    core.send(row.conversationId, 'notice', outcome.reply, [row]);
    return { messageId: row.id, disposition: 'command' };
  }
  const voice = voiceOf(row);
  if (voice) {
    // Transcription takes a while; the message keeps its place in line meanwhile.
    const item = lane.acceptPending(row);
    void transcribe(voice.path, core.settings().stt).then(
      (transcript) => {
        const extra = { ...row.extra, transcript };
        core.store.setExtra(row.id, extra);
        lane.release(item, { ...row, extra });
      },
      (err) => {
        const text = isVoiceNotSetUp(err)
          ? String((err as { context: { userText: string } }).context.userText)
          : `The voice note could not be transcribed: ${isRudderError(err) ? err.message : String(err)}`;
        core.store.setState(
          [row.id],
          'failed',
          isVoiceNotSetUp(err) ? 'speech-to-text is not configured' : 'transcription failed',
        );
        core.send(row.conversationId, 'notice', text, [row]);
        lane.removeItem(item);
      },
    );
    return { messageId: row.id, disposition: 'queued', reason: 'transcribing the voice note' };
  }
  return { messageId: row.id, disposition: lane.accept(row) };
}
