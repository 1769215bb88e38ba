/**
 * Permission requests waiting in the chats' conversations (Telegram, Discord, Slack, WhatsApp):
 * a request too long, or too strange, to approve in a chat is answered here, with the same card as
 * in a timeline. Above the open conversation, so it is seen on a phone too.
 */
import { answerInChat, useStore } from '../state.js';
import './InChats.css';
import { PermissionCard } from './PermissionCard.js';

const CHANNEL: Record<string, string> = {
  telegram: 'Telegram',
  discord: 'Discord',
  slack: 'Slack',
  whatsapp: 'WhatsApp',
};

export function InChats() {
  const requests = useStore((s) => s.inChats);
  if (!requests.length) return null;
  return (
    <details class="in-chats" open data-testid="in-chats">
      <summary>🔐 Waiting for you in {requests.length === 1 ? 'a chat' : `${requests.length} chats`}</summary>
      <ul>
        {requests.map((r) => (
          <li
            key={r.step.requestId}
            data-testid="in-chat"
            data-channel={r.channel}
            data-conversation={r.conversationId}
          >
            <div class="where">
              <span class="channel">{CHANNEL[r.channel] ?? r.channel}</span>
              <span class="title">{r.title ?? 'a conversation'}</span>
            </div>
            <PermissionCard step={r.step} answer={answerInChat} />
          </li>
        ))}
      </ul>
    </details>
  );
}
