/**
 * The table of chat tokens: what each platform's looks like and where to get one. A token is checked
 * against its shape before the platform is asked, so a pasted fragment is named at once.
 */
import { configError } from './errors.js';

interface TokenRule {
  /** What to do when it is not set. */
  missing: string;
  pattern: RegExp;
  /** What to do when it does not have the pattern's shape. */
  malformed: string;
}

const TOKENS = {
  'telegram.token': {
    missing: 'Set channels.telegram.token to the bot token from @BotFather.',
    pattern: /^\d+:[A-Za-z0-9_-]{20,}$/,
    malformed:
      'channels.telegram.token does not look like a bot token (digits, a colon, then letters); copy it ' +
      'again from @BotFather.',
  },
  'discord.token': {
    missing: 'Set channels.discord.token to the bot token from the Discord developer portal.',
    // Bot tokens are three dot-separated base64url parts.
    pattern: /^[\w-]+\.[\w-]+\.[\w-]+$/,
    malformed:
      'channels.discord.token does not look like a bot token; copy it again from the Bot page of the ' +
      'developer portal.',
  },
  'slack.botToken': {
    missing: 'Set channels.slack.botToken to the Bot User OAuth Token (xoxb-...).',
    pattern: /^xoxb-/,
    malformed: 'channels.slack.botToken must be a bot token starting with xoxb-.',
  },
  'slack.appToken': {
    missing: 'Set channels.slack.appToken to an app-level token (xapp-...) with connections:write, for Socket Mode.',
    pattern: /^xapp-/,
    malformed: 'channels.slack.appToken must be an app-level token starting with xapp-.',
  },
} satisfies Record<string, TokenRule>;

/** "<channel>.<key>": the setting channels.<channel>.<key>. */
export type TokenSetting = keyof typeof TOKENS;

/**
 * The configured token trimmed: the one sent, so the one redacted. CHANNEL_CONFIG naming the setting when
 * it is missing or malformed.
 */
export function requireToken(setting: TokenSetting, value: string | undefined): string {
  const rule: TokenRule = TOKENS[setting];
  const [channel, key] = setting.split('.') as [string, string];
  const token = value?.trim();
  if (!token) throw configError(channel, key, rule.missing);
  if (!rule.pattern.test(token)) throw configError(channel, key, rule.malformed);
  return token;
}

/** How a probe tells a refused token from a platform it could not reach. */
export interface ProbeErrors {
  isBadToken(err: unknown): boolean;
  /** The error as text, without the token. */
  describe(err: unknown): string;
}

/**
 * Asks the platform who the token belongs to, for `rudder doctor`: "token accepted: <who>", or that the
 * platform refused it or could not be reached.
 */
export async function probeToken(
  setting: TokenSetting,
  platform: string,
  whoAmI: () => Promise<string>,
  errors: ProbeErrors,
): Promise<{ ok: boolean; detail: string }> {
  try {
    return { ok: true, detail: `token accepted: ${await whoAmI()}` };
  } catch (err) {
    const detail = errors.isBadToken(err)
      ? `channels.${setting} was rejected by ${platform}`
      : `${platform} not reachable: ${errors.describe(err)}`;
    return { ok: false, detail };
  }
}
