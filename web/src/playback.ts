/**
 * Replies read aloud on the page: a reply's audio is fetched once (with the token, so it plays from a
 * blob: URL) and kept for the page's life; one reply plays at a time. The views read which one
 * plays and how it stands through usePlayback().
 */
import { api, explain, toast } from './app-store.js';
import { createStore } from './store.js';

export type PlayState = 'loading' | 'playing' | 'paused';

const store = createStore<{ id?: string; state?: PlayState }>({});
const urls = new Map<string, string>();
let audio: HTMLAudioElement | undefined;

/** How this reply stands: undefined when it is not the one playing (or loading). */
export function usePlayback(replyId: string): PlayState | undefined {
  return store.use((s) => (s.id === replyId ? s.state : undefined));
}

/** Play, pause or resume a reply's audio. */
export async function togglePlay(conversationId: string, replyId: string): Promise<void> {
  const { id, state } = store.get();
  if (id === replyId && audio) {
    if (state === 'playing') audio.pause();
    else if (state === 'paused') await audio.play().catch(() => undefined);
    return;
  }
  audio?.pause();
  store.set({ id: replyId, state: 'loading' });
  try {
    let url = urls.get(replyId);
    if (!url) {
      url = URL.createObjectURL(await api().replyAudio(conversationId, replyId));
      urls.set(replyId, url);
    }
    if (store.get().id !== replyId) return; // another reply was asked for meanwhile
    const el = (audio ??= listen(new Audio()));
    el.dataset.reply = replyId;
    el.src = url;
    await el.play();
  } catch (err) {
    if (store.get().id === replyId) store.set({ id: undefined, state: undefined });
    toast(`This reply could not be played: ${explain(err)}`);
  }
}

function listen(el: HTMLAudioElement): HTMLAudioElement {
  const mine = () => el.dataset.reply === store.get().id;
  el.addEventListener('playing', () => mine() && store.set({ state: 'playing' }));
  el.addEventListener('pause', () => mine() && !el.ended && store.set({ state: 'paused' }));
  el.addEventListener('ended', () => mine() && store.set({ id: undefined, state: undefined }));
  return el;
}
