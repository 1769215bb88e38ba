/** The layout: the conversation list (a drawer on a phone), and the open conversation. */
import { useEffect } from 'preact/hooks';
import { setDrawer, useStore } from '../state.js';
import './App.css';
import { Composer } from './Composer.js';
import { ConnectionBanner } from './ConnectionBanner.js';
import { ConversationList } from './ConversationList.js';
import { Header } from './Header.js';
import { InChats } from './InChats.js';
import { Timeline } from './Timeline.js';

export function App() {
  const drawerOpen = useStore((s) => s.drawerOpen);
  const toast = useStore((s) => s.toast);
  useEffect(() => {
    if (!drawerOpen) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setDrawer(false);
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [drawerOpen]);
  return (
    <div class={`app${drawerOpen ? ' drawer-open' : ''}`}>
      <aside class="sidebar" id="sidebar" aria-label="Conversations" data-testid="drawer">
        <ConversationList />
      </aside>
      <button
        type="button"
        class="backdrop"
        data-testid="drawer-backdrop"
        aria-label="Close the conversation list"
        tabIndex={-1}
        onClick={() => setDrawer(false)}
      />
      <main class="main">
        <Header />
        <ConnectionBanner />
        <InChats />
        <Timeline />
        <Composer />
      </main>
      {toast && (
        <div class="toast" role="alert" data-testid="toast">
          {toast}
        </div>
      )}
    </div>
  );
}
