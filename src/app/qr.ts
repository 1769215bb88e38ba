/**
 * The page's address as a QR code on the terminal at start, so a phone opens it by scanning
 * instead of typing a token. Only on a TTY (never into a log or a pipe: the code holds the
 * token), and only for an address a phone can open: 127.0.0.1 is this machine alone, so a
 * loopback bind shows the first web.allowedHosts name (the reverse proxy's) instead, or a hint.
 */
import os from 'node:os';
import qrcode from 'qrcode-terminal';
import { isAnyAddress, isLoopbackHost } from '../security/hosts.js';

export interface PageQrInput {
  /** The page URL with its token, as the startup line prints it. */
  url: string;
  /** web.allowedHosts: names (or name:port) a reverse proxy serves the page on. */
  allowedHosts?: string[];
  /** Whether stdout is a terminal. */
  isTTY: boolean;
}

/** The first address of this machine that another device can reach (IPv4, not internal). */
function lanAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

/** The URL a phone can open, or why there is none; the token (in the fragment) is kept. */
export function phoneUrl(url: string, allowedHosts: string[] = []): { url: string } | { hint: string } {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isAnyAddress(host) || host === '[::]') {
    const lan = lanAddress();
    if (!lan) return { hint: 'no network address of this machine was found for a phone to open' };
    u.hostname = lan;
    return { url: u.toString() };
  }
  if (!isLoopbackHost(host)) return { url };
  const name = allowedHosts[0];
  if (!name)
    return {
      hint:
        `the page is on ${u.host}, which a phone cannot open: see "Reaching the page from a phone" in the ` +
        'README (a QR code is printed here once web.allowedHosts names the address it is reached by)',
    };
  // The README's way in from a phone: an HTTPS reverse proxy on that name.
  return { url: `https://${name}/${u.hash}` };
}

/** The QR block to print at start (with a caption), or undefined when stdout is not a terminal. */
export function pageQr(input: PageQrInput): string | undefined {
  if (!input.isTTY) return undefined;
  const target = phoneUrl(input.url, input.allowedHosts);
  if ('hint' in target) return `No QR code for a phone: ${target.hint}.\n`;
  let art = '';
  qrcode.generate(target.url, { small: true }, (a) => (art = a));
  const shown = target.url.replace(/#token=.*/, '#token=…');
  return `${art}\nScan to open ${shown} on a phone (the code holds the token: keep it to yourself).\n`;
}
