/** The progress settings that apply to one channel: the global `progress`, with the channel's own keys over it. */
import type { ChannelProgressConfig, ProgressConfig } from '../../config/channels-schema.js';
import type { Config } from '../../config/schema.js';

export type { ProgressConfig };

export function progressFor(cfg: Config, channel: string): ProgressConfig {
  const own = (cfg.channels as Record<string, { progress?: ChannelProgressConfig } | undefined>)[channel]?.progress;
  return { ...cfg.progress, ...Object.fromEntries(Object.entries(own ?? {}).filter(([, v]) => v !== undefined)) };
}
