/**
 * Where a message is on Telegram. Message ids are unique per chat only, so platformMessageId is
 * "<chatId>:<messageId>" (an edit adds "@<edit_date>"); a forum topic is its own conversation, with
 * conversationKey "<chatId>:<topicId>".
 */
import type { Message } from 'grammy/types';

export function conversationKeyOf(m: Pick<Message, 'chat' | 'is_topic_message' | 'message_thread_id'>): string {
  return m.is_topic_message && m.message_thread_id !== undefined
    ? `${m.chat.id}:${m.message_thread_id}`
    : String(m.chat.id);
}

/** Splits a conversationKey back into the chat and the forum topic. */
export function parseConversationKey(key: string): { chatId: string; topicId?: number } {
  const [chatId, topic] = key.split(':');
  return topic === undefined ? { chatId: chatId! } : { chatId: chatId!, topicId: Number(topic) };
}

/** Splits a platformMessageId ("<chatId>:<messageId>[@edit]") back into its numeric message id. */
export function messageIdOf(platformMessageId: string): number | undefined {
  const m = /^-?\d+:(\d+)/.exec(platformMessageId) ?? /^(\d+)$/.exec(platformMessageId);
  return m ? Number(m[1]) : undefined;
}

/** Where a message goes in its chat: the forum topic, and the message it answers (sent without it if it is gone). */
export function placement(topicId: number | undefined, replyId?: number) {
  return {
    ...(topicId !== undefined ? { message_thread_id: topicId } : {}),
    ...(replyId !== undefined ? { reply_parameters: { message_id: replyId, allow_sending_without_reply: true } } : {}),
  };
}
