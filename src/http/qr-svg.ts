/** Renders a pairing QR code as SVG for the page, with the QR encoder qrcode-terminal ships. */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface QrModel {
  addData(s: string): void;
  make(): void;
  getModuleCount(): number;
  isDark(row: number, col: number): boolean;
}

export function qrSvg(text: string): string {
  const QRCode = require('qrcode-terminal/vendor/QRCode') as new (type: number, level: number) => QrModel;
  const levels = require('qrcode-terminal/vendor/QRCode/QRErrorCorrectLevel') as { L: number };
  const qr = new QRCode(-1, levels.L);
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const quiet = 4;
  let path = '';
  for (let r = 0; r < n; r++)
    for (let c = 0; c < n; c++) if (qr.isDark(r, c)) path += `M${c + quiet} ${r + quiet}h1v1h-1z`;
  const size = n + quiet * 2;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" ` +
    `shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" ` +
    `fill="#000"/></svg>`
  );
}
