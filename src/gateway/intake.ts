/**
 * Intake: the one door every inbound message goes through. It is committed to the inbox before
 * the channel is acknowledged (deduplicated by channel + platform message id), checked against
 * access control and the /stop cutoff, then routed to a command or to its conversation's lane.
 */
import type { AcceptResult, InboundMessage } from '../channels/channel.js';
import { isVoiceNotSetUp, transcribe } from '../channels/voice.js';
import { isRudderError } from '../errors.js';
import type { MessageRow } from '../store/types.js';
import type { Disposition } from './lane.js';
import { parseCommand, runCommand } from './commands.js';
import { ackData, type GatewayCore } from './core.js';

/** Text longer than this is refused, with the reason, instead of being passed on. */
export const MAX_TEXT_BYTES = 100 * 1024;

/** No process argument or stream to the agent can carry a NUL: a message with one is refused at the door. */
export const NUL_TEXT_REPLY = 'That message contains a NUL character (\\0), which cannot be passed to the agent; it was not passed on. Remove the character and send it again.';
const noNul = (s: string) => s.replaceAll('\0', '\uFFFD');

export function conversationIdOf(channel: string, key: string): string {
  return `${channel}:${key}`;
}

export async function acceptInbound(core: GatewayCore, msg: InboundMessage): Promise<AcceptResult> {
  const { store } = core;
  const conversationId = conversationIdOf(msg.channel, msg.conversationKey);
  const conv = store.ensureConversation(conversationId, msg.channel, msg.conversationKey);

  // An edit with a NUL is refused below like any new message.
  if (msg.editOf && !msg.text.includes('\0')) {
    const original = store.messageByPlatformId(msg.channel, msg.editOf);
    if (original?.state === 'queued' && core.lane(conversationId).replaceQueued(original.id, msg.text)) {
      store.updateText(original.id, msg.text);
      return { messageId: original.id, disposition: 'queued', reason: 'edit applied to the waiting message' };
    }
    // Its turn already started: the edit is a new message.
  }

  // Context the person did not type (a quoted message, a display name) loses its NUL instead of the message.
  const extra = {
    senderName: msg.sender.name === undefined ? undefined : noNul(msg.sender.name),
    chatType: msg.chatType,
    ...(msg.quoted ? { quoted: { ...msg.quoted, text: noNul(msg.quoted.text), ...(msg.quoted.author ? { author: noNul(msg.quoted.author) } : {}) } } : {}),
    ...(msg.attachments?.length ? { attachments: msg.attachments } : {}),
  };
  const base = { conversationId, channel: msg.channel, platformMessageId: msg.platformMessageId, senderId: msg.sender.id, text: msg.text, extra, sentAt: msg.sentAt };
  const refuse = (reason: string, reply?: string): AcceptResult => {
    const { row, duplicate } = store.insertMessage({ ...base, state: 'refused', reason });
    if (duplicate) return { messageId: row.id, disposition: 'duplicate' };
    core.log.info({ conversationId, messageId: row.id, reason }, 'message refused');
    if (reply) core.send(conversationId, 'notice', reply, [row]);
    return { messageId: row.id, disposition: 'refused', reason };
  };

  const access = core.access.check(msg);
  if (!access.allowed) return refuse(access.reason, access.reply);
  if (msg.text.includes('\0')) return refuse('nul-character', NUL_TEXT_REPLY);
  if (Buffer.byteLength(msg.text, 'utf8') > MAX_TEXT_BYTES) {
    return refuse('text-too-long', `That message is longer than ${MAX_TEXT_BYTES / 1024} KB and was not passed on. Send it as a file, or in parts.`);
  }
  if (conv.cutoffAt && msg.sentAt && msg.sentAt < conv.cutoffAt) return refuse('sent-before-stop');

  // One commit holds the message, its 'received' event and, for plain text, the lane's decision
  // (the turn start or the queue entry): acknowledged means stored, and a message costs few commits.
  let disposition: Disposition | undefined;
  const { row, duplicate } = store.tx(() => {
    const r = store.insertMessage({ ...base, state: 'accepted' });
    if (r.duplicate) return r;
    core.bus.publish(store.appendEvent(conversationId, 'ack', r.row.id, ackData('received')));
    core.channelAck(r.row, 'received'); // before the lane's own ack, so reactions land in order
    if (isPlainText(core, r.row)) disposition = core.lane(conversationId).accept(r.row);
    return r;
  });
  if (duplicate) return { messageId: row.id, disposition: 'duplicate' };
  return disposition ? { messageId: row.id, disposition } : route(core, row);
}

/** Text for the agent: not a command, not a permission answer, no voice note to transcribe first. */
function isPlainText(core: GatewayCore, row: MessageRow): boolean {
  if (parseCommand(row.text) || isPermissionAnswer(core, row)) return false;
  return !row.extra.attachments?.some((a) => a.kind === 'voice' || a.kind === 'audio');
}

function isPermissionAnswer(core: GatewayCore, row: MessageRow): boolean {
  return !!core.pendingPermission(row.conversationId) && /^\s*\d{1,2}\s*$/.test(row.text);
}

/** Routes a committed message: commands run here; everything else goes to its lane. */
export async function route(core: GatewayCore, row: MessageRow): Promise<AcceptResult> {
  const lane = core.lane(row.conversationId);
  const cmd = parseCommand(row.text);
  const permissionAnswer = !cmd && isPermissionAnswer(core, row);
  if (cmd || permissionAnswer) {
    core.store.setState([row.id], 'command');
    const outcome = await runCommand(cmd ?? { name: 'allow', args: '' }, core.commandContext(row.conversationId, row.text.trim(), row.sentAt ?? row.receivedAt));
    for (const r of outcome.stopped ?? []) core.ack(r, 'stopped');
    if (cmd?.name === 'stop' || cmd?.name === 'clear' || cmd?.name === 'new') core.ack(row, 'stopped');
    core.send(row.conversationId, 'notice', outcome.reply, [row]);
    return { messageId: row.id, disposition: 'command' };
  }
  const voice = row.extra.attachments?.find((a) => a.kind === 'voice' || a.kind === 'audio');
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
        const text = isVoiceNotSetUp(err) ? String((err as { context: { userText: string } }).context.userText) : `The voice note could not be transcribed: ${isRudderError(err) ? err.message : String(err)}`;
        core.store.setState([row.id], 'failed', isVoiceNotSetUp(err) ? 'speech-to-text is not configured' : 'transcription failed');
        core.send(row.conversationId, 'notice', text, [row]);
        lane.removeItem(item);
      },
    );
    return { messageId: row.id, disposition: 'queued', reason: 'transcribing the voice note' };
  }
  return { messageId: row.id, disposition: lane.accept(row) };
}
