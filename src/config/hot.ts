/**
 * Which config keys a running gateway takes from an edited file. The file usually sits in the
 * agent's own working directory, so only keys that cannot widen what the agent may do are hot:
 * steering (queue modes and caps), a channel's queueMode and log.level. Every other change (the
 * claude binary, permission mode, env, tools, stt, channels, web, fallback) waits for a restart.
 */
import type { Config } from './schema.js';

/** Key paths taken live; `*` is any one key. */
export const HOT_KEYS = ['steering', 'log.level', 'channels.*.queueMode'] as const;

function isHot(path: string): boolean {
  const parts = path.split('.');
  return HOT_KEYS.some((k) => {
    const want = k.split('.');
    return want.length <= parts.length && want.every((w, i) => w === '*' || w === parts[i]);
  });
}

/** Leaf key paths and their values (JSON); arrays are leaves. */
function leaves(value: unknown, prefix: string, out: Map<string, string>): Map<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) {
    out.set(prefix, JSON.stringify(value));
  }
  return out;
}

export interface HotMerge {
  /** The running config with the file's hot keys applied. */
  config: Config;
  /** Hot keys whose value changed. */
  applied: string[];
  /** Other keys whose value differs from the running one: applied at the next start only. */
  pending: string[];
}

/** The file's hot keys applied onto the running config; the rest only reported. */
export function mergeHot(running: Config, file: Config): HotMerge {
  const config = structuredClone(running);
  const channels = config.channels as Record<string, { queueMode?: unknown } | undefined>;
  const fileChannels = file.channels as Record<string, { queueMode?: unknown } | undefined>;
  // A channel's queueMode is hot only for a channel that runs; a new channel needs a restart.
  const hot = (key: string) =>
    isHot(key) && (!key.startsWith('channels.') || channels[key.split('.')[1]!] !== undefined);
  const a = leaves(running, '', new Map());
  const b = leaves(file, '', new Map());
  const applied: string[] = [];
  const pending: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(key) !== b.get(key)) (hot(key) ? applied : pending).push(key);
  }
  config.steering = structuredClone(file.steering);
  config.log.level = file.log.level;
  for (const [name, ch] of Object.entries(channels)) {
    if (!ch) continue;
    const next = fileChannels[name]?.queueMode;
    if (next === undefined) delete ch.queueMode;
    else ch.queueMode = next;
  }
  return { config, applied, pending };
}
