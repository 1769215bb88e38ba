/** A chat channel waiting to be linked (WhatsApp) shows its pairing code here. */
import { useStore } from '../state.js';
import './Pairing.css';

export function Pairing() {
  const pairing = useStore((s) => s.pairing);
  if (!pairing.length) return null;
  return (
    <div class="pairing" data-testid="pairing">
      {pairing.map((p) => (
        <div key={p.name}>
          <p>Link {p.name}: scan this code in the app (Linked devices).</p>
          <img alt={`${p.name} pairing code`} src={`data:image/svg+xml;base64,${btoa(p.qrSvg)}`} />
        </div>
      ))}
    </div>
  );
}
