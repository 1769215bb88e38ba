/**
 * The names the web channel answers to, checked on every request's Host header and on an API
 * request's Origin: the address it is bound to (for a loopback bind 127.0.0.1, localhost and
 * [::1]; for 0.0.0.0 or :: every address of this machine and its hostname), plus
 * `web.allowedHosts` for a reverse proxy. A page on another name that resolves to this machine
 * (DNS rebinding) is refused before anything else is looked at.
 */
import os from 'node:os';
import { bracket, isAnyAddress, isLoopbackHost, splitHostPort } from '../security/hosts.js';

function machineNames(): string[] {
  const names = [os.hostname()];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) names.push(a.address.replace(/%.*$/, ''));
  }
  return names;
}

/** How often the list of this machine's addresses is read again when a name is not on it. */
const REFRESH_MS = 10_000;

export class HostRules {
  /** The bound address's names with its port: served over plain HTTP only. */
  private exact = new Set<string>();
  /** From web.allowedHosts: behind a proxy, over http or https. */
  private readonly anyPort = new Set<string>();
  private readonly exactAllowed = new Set<string>();
  private refreshedAt = 0;

  constructor(
    private readonly bound: { host: string; port: number },
    allowedHosts: readonly string[] = [],
  ) {
    for (const entry of allowedHosts) {
      const hp = splitHostPort(entry);
      if (!hp) continue; // the schema has checked the form already
      if (hp.port === undefined) this.anyPort.add(hp.name);
      else this.exactAllowed.add(`${hp.name}:${hp.port}`);
    }
    this.refresh();
  }

  private refresh(): void {
    const { host, port } = this.bound;
    const names = [host];
    if (isLoopbackHost(host) || isAnyAddress(host)) names.push('127.0.0.1', 'localhost', '::1');
    if (isAnyAddress(host)) names.push(...machineNames());
    this.exact = new Set(names.map((n) => `${bracket(n)}:${port}`));
    this.refreshedAt = Date.now();
  }

  private allows(name: string, ports: number[], bound = true): boolean {
    const hit = () =>
      this.anyPort.has(name) ||
      ports.some((p) => this.exactAllowed.has(`${name}:${p}`) || (bound && this.exact.has(`${name}:${p}`)));
    if (hit()) return true;
    // An address added since the last look (a new interface on a 0.0.0.0 bind).
    if (isAnyAddress(this.bound.host) && Date.now() - this.refreshedAt > REFRESH_MS) {
      this.refresh();
      return hit();
    }
    return false;
  }

  /** A Host header without a port counts as 80 or 443 (behind a TLS proxy the scheme is unknown). */
  allowsHost(header: string | undefined): boolean {
    const hp = header === undefined ? undefined : splitHostPort(header);
    if (!hp) return false;
    return this.allows(hp.name, hp.port === undefined ? [80, 443] : [hp.port]);
  }

  /**
   * An Origin header: the page itself (http on the bound address), or an allowed host over http(s); "null" never is.
   */
  allowsOrigin(origin: string): boolean {
    let u: URL;
    try {
      u = new URL(origin);
    } catch {
      return false;
    }
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== origin.toLowerCase().replace(/\/$/, ''))
      return false;
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    return this.allows(u.hostname.toLowerCase(), [port], u.protocol === 'http:');
  }
}
