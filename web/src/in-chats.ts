/**
 * Permission requests waiting in the chats' conversations (a request too long to approve in a chat
 * says "answer on the web page"): polled, and answered through the gateway's one desk.
 */
import { api, failed, getState, set } from './app-store.js';

export async function refreshInChats(): Promise<void> {
  try {
    const { requests } = await api().waitingInChats();
    if (JSON.stringify(requests) !== JSON.stringify(getState().inChats)) set({ inChats: requests });
  } catch {
    // The banner already says when the gateway is unreachable.
  }
}

export async function answerInChat(requestId: string, optionId: string): Promise<void> {
  try {
    await api().answerInChat(requestId, optionId);
  } catch (err) {
    failed(err);
  }
  await refreshInChats();
}
