/**
 * Webhook mode: a small HTTP server (put a TLS proxy in front of it) that hands each update to
 * grammY's webhookCallback. Telegram gets 200 only after the middleware resolved, i.e. after
 * sink.accept committed the message; any failure answers 500 and Telegram delivers it again.
 * Every request must carry the secret registered with setWebhook (X-Telegram-Bot-Api-Secret-Token);
 * without it anyone who finds the port could post updates that claim to come from an owner.
 */
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { type Bot, webhookCallback } from 'grammy';
import type { Logger } from '../../ops/logger.js';

export interface WebhookServerOptions {
  bot: Bot;
  host: string;
  port: number;
  path: string;
  /** Always set: the configured one, or one generated at start. */
  secretToken: string;
  logger: Logger;
}

function secretMatches(given: string | string[] | undefined, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startWebhookServer(o: WebhookServerOptions): Promise<http.Server> {
  // Downloads of attachments happen before the commit; give them time before Telegram is told no.
  const handle = webhookCallback(o.bot, 'http', {
    secretToken: o.secretToken,
    onTimeout: 'throw',
    timeoutMilliseconds: 55_000,
  });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'POST' || url.pathname !== o.path) {
      res.writeHead(404).end();
      return;
    }
    if (!secretMatches(req.headers['x-telegram-bot-api-secret-token'], o.secretToken)) {
      res.writeHead(401).end();
      req.resume();
      return;
    }
    handle(req, res).catch((err: unknown) => {
      o.logger.error(
        { err: err instanceof Error ? err.message : String(err) },
        'telegram webhook update not committed; Telegram will retry',
      );
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
