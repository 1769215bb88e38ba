/**
 * The table of chat channels: name -> factory. Factories import their platform library on demand,
 * so a disabled channel costs nothing at startup (discord.js and Baileys are large).
 */

import type { ChannelsConfig } from '../config/channels-schema.js';
import type { Logger } from '../ops/logger.js';
import type { Channel } from './channel.js';

export interface ChannelContext<C> {
  config: C;
  dataDir: string;
  logger: Logger;
}

export type ChannelFactory<C> = (ctx: ChannelContext<C>) => Promise<Channel>;

export type ChatChannelName = keyof ChannelsConfig;

export const channelFactories: { [K in ChatChannelName]-?: ChannelFactory<NonNullable<ChannelsConfig[K]>> } = {
  telegram: async (ctx) => new (await import('./telegram/channel.js')).TelegramChannel(ctx),
  discord: async (ctx) => new (await import('./discord/channel.js')).DiscordChannel(ctx),
  slack: async (ctx) => new (await import('./slack/channel.js')).SlackChannel(ctx),
  whatsapp: async (ctx) => new (await import('./whatsapp/channel.js')).WhatsAppChannel(ctx),
};

/** Builds every channel whose section is present and enabled, in the table's order. */
export async function createChannels(
  channels: ChannelsConfig | undefined,
  base: { dataDir: string; logger: Logger },
): Promise<Channel[]> {
  const out: Channel[] = [];
  for (const name of Object.keys(channelFactories) as ChatChannelName[]) {
    const config = channels?.[name];
    if (!config?.enabled) continue;
    const factory = channelFactories[name] as ChannelFactory<typeof config>;
    out.push(await factory({ config, dataDir: base.dataDir, logger: base.logger }));
  }
  return out;
}

/** A channel paired by QR code (WhatsApp); the web page shows the code. */
export interface QrPairing {
  qr(): string | undefined;
  onQr(listener: (qr: string | undefined) => void): () => void;
}

export function hasQrPairing(channel: Channel): channel is Channel & QrPairing {
  const c = channel as Partial<QrPairing>;
  return typeof c.qr === 'function' && typeof c.onQr === 'function';
}
