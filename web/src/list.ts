/** What the views do with the conversation list: start one, rename, archive, show the archived, filter, the drawer. */
import { api, failed, getState, set } from './app-store.js';
import { closeConversation, type Opening, openConversation } from './conversation.js';
import { refreshList } from './list-refresh.js';

export async function newConversation(project?: string, o: Opening = {}): Promise<void> {
  const left = getState().currentId;
  // Left at once: text typed while the gateway makes the new one goes into it, not into the one left.
  closeConversation(o);
  try {
    const { id } = await api().createConversation(project ? { project } : {});
    await refreshList();
    await openConversation(id, getState().draft, o);
  } catch (err) {
    failed(err);
    if (left && !getState().currentId) await openConversation(left, getState().draft, o);
  }
}

export async function rename(id: string, title: string): Promise<void> {
  try {
    const item = await api().updateConversation(id, { title });
    set((s) => ({ conversations: s.conversations.map((x) => (x.id === id ? item : x)) }));
  } catch (err) {
    failed(err);
  }
}

export async function archive(id: string, archived: boolean): Promise<void> {
  try {
    await api().updateConversation(id, { archived });
    const { conversations } = await api().conversations();
    set({
      conversations,
      ...(getState().archived ? { archived: (await api().conversations(true)).conversations } : {}),
    });
    if (archived && getState().currentId === id) {
      const next = conversations[0];
      if (next) await openConversation(next.id);
      else await newConversation();
    }
  } catch (err) {
    failed(err);
  }
}

export async function showArchived(show: boolean): Promise<void> {
  if (!show) return set({ archived: undefined });
  try {
    set({ archived: (await api().conversations(true)).conversations });
  } catch (err) {
    failed(err);
  }
}

export function setProjectFilter(project: string | undefined): void {
  set({ projectFilter: project });
}

export function setDrawer(open: boolean): void {
  set({ drawerOpen: open });
  // The list is fresh whenever it is opened (other conversations' unread marks).
  if (open) void refreshList();
}
