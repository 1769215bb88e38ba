/** Host names as a Host header or a bind address writes them: loopback, any-address, name and port. */

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

export function isAnyAddress(host: string): boolean {
  return ['0.0.0.0', '::', '[::]'].includes(host);
}

/** IPv6 literals are written in brackets in Host and URLs. */
export const bracket = (name: string) =>
  (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name).toLowerCase();

/** "name" or "name:port" as a Host header writes it; undefined when it is not one. */
export function splitHostPort(value: string): { name: string; port?: number } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (!m) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && port > 65535) return undefined;
  return { name: m[1]!, port };
}
