/** The layout: the conversation list (a drawer on a phone), and the open conversation or its Changes view. */
import { useEffect, useState } from 'preact/hooks';
import { setDrawer, useStore } from '../state.js';
import './App.css';
import { Composer } from './Composer.js';
import { ConnectionBanner } from './ConnectionBanner.js';
import { ConversationList } from './ConversationList.js';
import { Header } from './Header.js';
import { InChats } from './InChats.js';
import { Timeline } from './Timeline.js';

type ChangesModule = typeof import('./Changes.js');
let changesModule: ChangesModule | undefined;

/** The Changes view, loaded the first time it opens: it is not part of the app's first download. */
function ChangesSlot() {
  const [m, setM] = useState(changesModule);
  const [failedToLoad, setFailed] = useState(false);
  useEffect(() => {
    if (m) return;
    void import('./Changes.js').then(
      (x) => setM((changesModule = x)),
      () => setFailed(true),
    );
  }, [m]);
  if (m) return <m.Changes />;
  return (
    <p class="dim placeholder" data-testid="changes-loading">
      {failedToLoad ? 'The Changes view could not be loaded; check the connection and try again.' : 'Loading…'}
    </p>
  );
}

export function App() {
  const drawerOpen = useStore((s) => s.drawerOpen);
  const changesOpen = useStore((s) => !!s.changes?.open);
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
        {changesOpen ? (
          <ChangesSlot />
        ) : (
          <>
            <InChats />
            <Timeline />
            <Composer />
          </>
        )}
      </main>
      {toast && (
        <div class="toast" role="alert" data-testid="toast">
          {toast}
        </div>
      )}
    </div>
  );
}
