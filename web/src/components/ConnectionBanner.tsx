/** Says when the gateway cannot be reached or the stream dropped; nothing while all is well. */
import { useStore } from '../state.js';
import './ConnectionBanner.css';

const TEXT = {
  connecting: undefined,
  live: undefined,
  reconnecting: 'Connection lost. Reconnecting… (what you miss meanwhile will appear)',
  unreachable: 'Cannot reach the gateway. It may be stopped, or this device is offline. Retrying…',
  unauthorized: undefined,
} as const;

export function ConnectionBanner() {
  const connection = useStore((s) => s.connection);
  const detail = useStore((s) => s.connectionDetail);
  const text = connection === 'unauthorized' ? detail : TEXT[connection];
  if (!text) return null;
  return (
    <div class={`banner ${connection}`} role="status" data-testid="connection" data-state={connection}>
      {text}
    </div>
  );
}
