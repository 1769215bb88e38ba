/**
 * The layout: a skip link to the message box, the conversation list (a drawer on a phone: a dialog
 * that takes the focus and leaves the page behind it out of reach until it closes), and the open
 * conversation, its Changes view or the Schedules view, with the live regions a screen reader is told from.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { usePhone } from '../hooks.js';
import { setDrawer, useStore } from '../state.js';
import { Announcer } from './Announcer.js';
import './App.css';
import { Composer } from './Composer.js';
import { ConnectionBanner } from './ConnectionBanner.js';
import { ConversationList } from './ConversationList.js';
import { Header } from './Header.js';
import { InChats } from './InChats.js';
import { Schedules } from './Schedules.js';
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

const FOCUSABLE = 'button:not([disabled]), select:not([disabled]), input:not([disabled]), a[href], [tabindex="0"]';

/** The drawer as a phone's dialog: the focus goes in and stays in it; Escape closes it and the focus goes back. */
function useDrawerDialog(drawer: { current: HTMLElement | null }, modal: boolean): void {
  // What had the focus when it opened, taken while rendering: once the page behind is inert, it has lost it.
  const opened = useRef<HTMLElement | null>(null);
  if (modal && !opened.current) opened.current = document.activeElement as HTMLElement | null;
  if (!modal) opened.current = null;
  useEffect(() => {
    const el = drawer.current;
    if (!modal || !el) return;
    const opener = opened.current;
    const inside = () => [...el.querySelectorAll<HTMLElement>(FOCUSABLE)];
    (el.querySelector<HTMLElement>('[aria-current="page"]') ?? inside()[0])?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') return setDrawer(false);
      if (e.key !== 'Tab') return;
      const all = inside();
      const [first, last] = [all[0], all.at(-1)];
      if (!first || !last) return;
      if (e.shiftKey && document.activeElement === first) e.preventDefault(), last.focus();
      else if (!e.shiftKey && document.activeElement === last) e.preventDefault(), first.focus();
    };
    addEventListener('keydown', onKey);
    return () => {
      removeEventListener('keydown', onKey);
      // Closed with the focus in it (Escape, a conversation chosen): it goes back to what opened it.
      if (el.contains(document.activeElement) || document.activeElement === document.body) opener?.focus();
    };
  }, [modal]);
}

/** Jumps over the conversation list to the message box (a button: a link would change the address's #c=…). */
function SkipLink() {
  return (
    <button
      type="button"
      class="skip-link"
      data-testid="skip-link"
      onClick={() => document.getElementById('message-input')?.focus()}
    >
      Skip to the message box
    </button>
  );
}

export function App() {
  const drawerOpen = useStore((s) => s.drawerOpen);
  const changesOpen = useStore((s) => !!s.changes?.open);
  const schedulesOpen = useStore((s) => !!s.schedules?.open);
  const toast = useStore((s) => s.toast);
  const phone = usePhone();
  const modal = phone && drawerOpen;
  const drawer = useRef<HTMLElement>(null);
  useDrawerDialog(drawer, modal);
  return (
    <div class={`app${drawerOpen ? ' drawer-open' : ''}`}>
      {!modal && <SkipLink />}
      <aside
        class="sidebar"
        id="sidebar"
        aria-label="Conversations"
        data-testid="drawer"
        ref={drawer}
        {...(modal ? { role: 'dialog', 'aria-modal': 'true' } : {})}
      >
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
      <main class="main" inert={modal}>
        <Header />
        <ConnectionBanner />
        {schedulesOpen ? (
          <Schedules />
        ) : changesOpen ? (
          <ChangesSlot />
        ) : (
          <>
            <InChats />
            <Timeline />
            <Composer />
          </>
        )}
        <Announcer />
      </main>
      {toast && (
        <div class="toast" role="alert" data-testid="toast">
          {toast}
        </div>
      )}
    </div>
  );
}
