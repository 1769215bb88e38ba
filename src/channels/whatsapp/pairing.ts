/**
 * Pairing by QR code: the code to scan in WhatsApp > Linked devices, printed on the terminal (when
 * whatsapp.printQr is set) and given to the web page through qr()/onQr().
 */
import qrcode from 'qrcode-terminal';

export class PairingCode {
  private current?: string;
  private readonly listeners = new Set<(qr: string | undefined) => void>();

  constructor(private readonly print: boolean) {}

  /** The QR code to scan while pairing, or undefined once paired. */
  qr(): string | undefined {
    return this.current;
  }

  /** Calls listener with every new QR code, and with undefined once pairing is done. */
  onQr(listener: (qr: string | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A new code to scan, or undefined: paired. */
  show(qr: string | undefined): void {
    this.current = qr;
    if (qr && this.print) {
      qrcode.generate(qr, { small: true }, (art: string) =>
        process.stderr.write(`\nWhatsApp: scan this QR code in WhatsApp > Linked devices\n${art}\n`),
      );
    }
    for (const l of this.listeners) l(qr);
  }
}
