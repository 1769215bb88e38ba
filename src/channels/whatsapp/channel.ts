/**
 * The WhatsApp channel: the channel runtime with the WhatsApp adapter (adapter.ts), and the QR code
 * to pair with (pairing.ts), which the web page shows through qr()/onQr().
 */
import { ChannelRuntime } from '../runtime/runtime.js';
import { WhatsAppAdapter, type WhatsAppChannelOptions } from './adapter.js';
import { PairingCode } from './pairing.js';

export type { WhatsAppChannelOptions };

export class WhatsAppChannel extends ChannelRuntime {
  private readonly pairing: PairingCode;

  constructor(o: WhatsAppChannelOptions) {
    const pairing = new PairingCode(o.config.printQr);
    super({ name: 'whatsapp', logger: o.logger, adapter: (link) => new WhatsAppAdapter(o, link, pairing) });
    this.pairing = pairing;
  }

  /** The QR code to scan while pairing (WhatsApp > Linked devices), or undefined once paired. */
  qr(): string | undefined {
    return this.pairing.qr();
  }

  /** Calls listener with every new QR code, and with undefined once pairing is done. */
  onQr(listener: (qr: string | undefined) => void): () => void {
    return this.pairing.onQr(listener);
  }
}
