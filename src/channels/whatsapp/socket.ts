/**
 * Building the Baileys socket: auth state in <dataDir>/whatsapp-auth, Baileys' own logs kept at
 * warn level, no history sync (Rudder only answers new messages). The factory is a seam: tests
 * pass one that builds the real socket against a loopback server and records what it sends.
 */
import path from 'node:path';
import makeWASocket, {
  Browsers,
  type UserFacingSocketConfig,
  useMultiFileAuthState,
  type WASocket,
} from '@whiskeysockets/baileys';
import type { Logger } from '../../ops/logger.js';

export type SocketFactory = (config: UserFacingSocketConfig) => WASocket;

export const defaultSocketFactory: SocketFactory = (config) => makeWASocket(config);

export function authDir(dataDir: string): string {
  return path.join(dataDir, 'whatsapp-auth');
}

export async function loadAuth(dataDir: string) {
  return useMultiFileAuthState(authDir(dataDir));
}

export type BaileysLogger = NonNullable<UserFacingSocketConfig['logger']>;

/** Baileys logs every frame at debug; only its warnings are worth the operator's attention. */
export function baileysLogger(logger: Logger): BaileysLogger {
  return logger.child(
    { lib: 'baileys' },
    { level: logger.levelVal >= 40 ? logger.level : 'warn' },
  ) as unknown as BaileysLogger;
}

export function socketConfig(o: {
  auth: UserFacingSocketConfig['auth'];
  logger: BaileysLogger;
  webSocketUrl?: string;
}): UserFacingSocketConfig {
  return {
    auth: o.auth,
    logger: o.logger,
    browser: Browsers.ubuntu('Rudder'),
    markOnlineOnConnect: false,
    syncFullHistory: false,
    shouldSyncHistoryMessage: () => false,
    fireInitQueries: false,
    ...(o.webSocketUrl ? { waWebSocketUrl: o.webSocketUrl } : {}),
  };
}
