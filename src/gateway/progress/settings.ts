/** The progress settings that apply to one channel: the global `progress`, with the channel's own keys over it. */
import type { ChannelProgressConfig, ProgressConfig } from '../../config/channels-schema.js';
import type { Config } from '../../config/schema.js';

export type { ProgressConfig };

export function progressFor(cfg: Config, channel: string): ProgressConfig {
  const own = (cfg.channels as Record<string, { progress?: ChannelProgressConfig } | undefined>)[channel]?.progress;
  return { ...cfg.progress, ...Object.fromEntries(Object.entries(own ?? {}).filter(([, v]) => v !== undefined)) };
}

/** Button data: "p:<ref>:<option number>" answers a permission request, "s:<ref>" stops a card's turn. */
export type ButtonAction = { kind: 'permission'; ref: string; number: number } | { kind: 'stop'; ref: string };

export function parseButton(data: string): ButtonAction | undefined {
  const p = /^p:([\w-]{1,24}):(\d{1,2})$/.exec(data);
  if (p) return { kind: 'permission', ref: p[1]!, number: Number(p[2]) };
  const s = /^s:([\w-]{1,24})$/.exec(data);
  return s ? { kind: 'stop', ref: s[1]! } : undefined;
}
