/**
 * HTTP requests with headers fetch will not send as given (Host above all) and request targets it
 * would normalise (bad percent-encoding, absolute form), for the web channel's guard tests.
 */
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  method?: string;
  /** Sent exactly as given, unnormalised. */
  target: string;
  headers?: Record<string, string>;
  body?: string;
  /** For streams: resolve once the headers are in, then drop the connection. */
  headersOnly?: boolean;
}

export function rawRequest(base: string, r: RawRequest): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: r.method ?? 'GET',
      path: r.target,
      headers: { host: url.host, ...r.headers },
      setHost: false,
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (r.headersOnly) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
        res.destroy();
        req.destroy();
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.end(r.body);
  });
}
