/**
 * The ⋯ menu's notification items: turn them on for this device (only this asks the browser for its
 * permission), mute the open conversation on every device, send a test, turn them off. Where they
 * cannot work, one line says why instead.
 */
import { api, type PushStatus, toast } from '../app-store.js';
import { disablePush, enablePush, setMuted } from '../state.js';
import type { ConversationItem } from '../types.js';

/** A bell drawn in the text's colour (no emoji font needed). */
function Bell() {
  return (
    <svg class="bell" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2">
      <path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z" stroke-linejoin="round" />
      <path d="M10 20a2 2 0 0 0 4 0" stroke-linecap="round" />
    </svg>
  );
}

async function test(): Promise<void> {
  try {
    const { devices } = await api().testPush();
    toast(`A test notification went to ${devices} device${devices === 1 ? '' : 's'}.`);
  } catch (err) {
    toast((err as Error).message);
  }
}

/** `push` is what the browser allowed when the menu opened: its items do not change while it is open. */
export function NotifyMenu({
  id,
  item,
  push,
  act,
}: {
  id: string;
  item?: ConversationItem;
  push: PushStatus | undefined;
  act(f: () => void): () => void;
}) {
  if (push === undefined || push === 'gateway-off') return null;
  if (push === 'unsupported' || push === 'blocked')
    return (
      <p class="menu-note" data-testid="notify-unavailable">
        {push === 'blocked'
          ? 'Notifications are blocked for this site: allow them in the browser’s site settings.'
          : 'Notifications need the app opened over https:// (or on this computer), or added to the home screen.'}
      </p>
    );
  if (push === 'off' || push === 'working')
    return (
      <button
        type="button"
        role="menuitem"
        class="with-hint"
        data-testid="notify-on"
        disabled={push === 'working'}
        onClick={act(() => void enablePush())}
      >
        <Bell />
        <span>Notify me on this device</span>
        <span class="hint">When the agent waits for you, fails, or ends a long turn</span>
      </button>
    );
  return (
    <>
      <button
        type="button"
        role="menuitemcheckbox"
        aria-checked={!!item?.muted}
        data-testid="notify-mute"
        onClick={act(() => void setMuted(id, !item?.muted))}
      >
        {item?.muted ? 'Unmute this conversation' : 'Mute this conversation'}
      </button>
      <button type="button" role="menuitem" data-testid="notify-test" onClick={act(() => void test())}>
        Send a test notification
      </button>
      <button type="button" role="menuitem" data-testid="notify-off" onClick={act(() => void disablePush())}>
        Stop notifying this device
      </button>
    </>
  );
}
