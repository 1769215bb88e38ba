/**
 * Config schema for the chat channels (`channels.telegram|discord|slack|whatsapp`), for
 * speech-to-text (`stt`) and text-to-speech (`tts`). Objects are strict: an unknown key is an
 * error, so a typo never turns into a silently ignored setting.
 *
 * Tokens are optional here on purpose: a channel with a missing or malformed token fails at its
 * own start (CHANNEL_CONFIG naming the key) while the other channels keep running.
 */
import { z } from 'zod';

export const queueModeSchema = z.enum(['steer', 'followup', 'collect', 'interrupt']);

/** How a chat shows a running turn: one card edited in place, and what becomes of text written between tools. */
const progressFields = {
  /** card: one message edited in place while a turn runs, collapsed to one line at its end; off: none. */
  mode: z.enum(['card', 'off']),
  /** A card is posted once a turn has run this long, or at its first tool call, whichever comes first. */
  minTurnSeconds: z.number().min(0).max(3600),
  /** Edits of one card are at least this far apart (the platform's own rate limits are honoured as well). */
  editEverySeconds: z.number().min(0.2).max(600),
  /**
   * Text the agent writes between tools: in the card only, also as messages of their own, or not shown before the final
   * reply.
   */
  text: z.enum(['card', 'messages', 'final-only']),
};

/** The global `progress` section: every key has its default. */
export const progressSchema = z
  .object({
    mode: progressFields.mode.default('card'),
    minTurnSeconds: progressFields.minTurnSeconds.default(3),
    editEverySeconds: progressFields.editEverySeconds.default(3),
    text: progressFields.text.default('card'),
  })
  .strict();

/** A channel's `progress`: each key given overrides the global one. */
export const channelProgressSchema = z.object(progressFields).partial().strict();

/** Platform ids are strings; numeric ids (Telegram) may be written as numbers in the config file. */
const platformId = z.union([z.string().min(1), z.number().int()]).transform((v) => String(v));
const idList = z.array(platformId).default([]);

const groupsSchema = z
  .object({
    /** Answer in group chats at all. */
    enabled: z.boolean().default(true),
    /** In a group, answer only when mentioned or replied to. */
    requireMention: z.boolean().default(true),
    /** Group/channel ids Rudder may answer in; empty means any group an allowed sender writes in. */
    allow: idList,
  })
  .strict();

/** Settings every chat channel has: who may talk to it and how groups behave. */
const accessFields = {
  enabled: z.boolean().default(true),
  /** Platform user ids of the owners: always admitted, and the only senders whose commands run. */
  owners: idList,
  /** Further platform user ids admitted without pairing. */
  allow: idList,
  /** Unknown senders in a direct chat get a pairing code for `rudder pairing approve`. */
  pairing: z.boolean().default(true),
  groups: groupsSchema.prefault({}),
  /** Overrides the gateway's queue mode for conversations on this channel. */
  queueMode: queueModeSchema.optional(),
  /** Larger attachments are not downloaded; the message says so instead. */
  maxAttachmentMb: z.number().positive().max(2048).default(25),
  /** Binds a chat (or a topic or thread: its full conversation key) to a project by name. */
  projects: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Overrides the global `progress` settings for this channel. */
  progress: channelProgressSchema.optional(),
};

export const telegramSchema = z
  .object({
    ...accessFields,
    /** Bot token from @BotFather. */
    token: z.string().optional(),
    /** Bot API server; set it for a self-hosted telegram-bot-api server or a proxy. */
    apiRoot: z.url().default('https://api.telegram.org'),
    mode: z.enum(['polling', 'webhook']).default('polling'),
    /** Long-polling timeout for getUpdates, in seconds. */
    pollTimeoutSeconds: z.number().int().min(0).max(50).default(30),
    webhook: z
      .object({
        /** Public HTTPS URL Telegram posts updates to. */
        url: z.url(),
        /** Local address the webhook server listens on (put a TLS proxy in front). */
        host: z.string().default('127.0.0.1'),
        port: z.number().int().min(1).max(65535).default(8443),
        path: z.string().startsWith('/').default('/telegram'),
        /** Sent by Telegram in X-Telegram-Bot-Api-Secret-Token; requests without it are refused. */
        secretToken: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,256}$/)
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const discordSchema = z
  .object({
    ...accessFields,
    /** Bot token from the Discord developer portal (needs the Message Content intent). */
    token: z.string().optional(),
    /** REST API base, without the version; the gateway URL is asked from it. */
    restApi: z.url().default('https://discord.com/api'),
  })
  .strict();

export const slackSchema = z
  .object({
    ...accessFields,
    /** Bot token (xoxb-...). */
    botToken: z.string().optional(),
    /** App-level token with connections:write (xapp-...), for Socket Mode. */
    appToken: z.string().optional(),
    /** Web API base URL, ending in a slash. */
    apiUrl: z.url().default('https://slack.com/api/'),
  })
  .strict();

export const whatsappSchema = z
  .object({
    ...accessFields,
    /** Print the pairing QR code on the terminal (it is also shown on the web page). */
    printQr: z.boolean().default(true),
    /** WhatsApp Web socket URL; only for proxies and tests. */
    webSocketUrl: z.url().optional(),
  })
  .strict();

export const channelsSchema = z
  .object({
    telegram: telegramSchema.optional(),
    discord: discordSchema.optional(),
    slack: slackSchema.optional(),
    whatsapp: whatsappSchema.optional(),
  })
  .strict();

/** Speech-to-text for voice notes: a local command such as a whisper.cpp binary. */
export const sttSchema = z
  .object({
    /** Executable path or name on PATH; run without a shell. */
    command: z.string().min(1),
    /** Arguments; "{file}" is replaced by the audio file path (appended when absent). */
    args: z.array(z.string()).default(['{file}']),
    timeoutSeconds: z.number().positive().max(3600).default(120),
  })
  .strict();

/** What a text-to-speech command writes; ogg is Ogg Opus, what Telegram and WhatsApp play as a voice note. */
export const TTS_FORMATS = { ogg: 'audio/ogg', mp3: 'audio/mpeg', m4a: 'audio/mp4', wav: 'audio/wav' } as const;

/**
 * Text-to-speech for replies to voice notes: a local command such as piper. The reply's text (as plain text) comes
 * on its standard input; it writes an audio file where "{out}" says.
 */
export const ttsSchema = z
  .object({
    /** Executable path or name on PATH; run without a shell. */
    command: z.string().min(1),
    /** Arguments; "{out}" is replaced by the path of the audio file to write (appended when absent). */
    args: z.array(z.string()).default(['{out}']),
    /** The format of the file it writes. */
    format: z.enum(Object.keys(TTS_FORMATS) as [keyof typeof TTS_FORMATS]).default('ogg'),
    timeoutSeconds: z.number().positive().max(3600).default(120),
    /** A longer reply is spoken up to here (the text reply stays whole). */
    maxChars: z.number().int().min(100).max(100_000).default(4000),
  })
  .strict();

export type QueueModeSetting = z.infer<typeof queueModeSchema>;
export type TelegramConfig = z.infer<typeof telegramSchema>;
export type DiscordConfig = z.infer<typeof discordSchema>;
export type SlackConfig = z.infer<typeof slackSchema>;
export type WhatsAppConfig = z.infer<typeof whatsappSchema>;
export type ChannelsConfig = z.infer<typeof channelsSchema>;
export type ProgressConfig = z.infer<typeof progressSchema>;
export type ChannelProgressConfig = z.infer<typeof channelProgressSchema>;
export type SttConfig = z.infer<typeof sttSchema>;
export type TtsConfig = z.infer<typeof ttsSchema>;
/** The access-related part every channel config shares. */
export type ChannelAccessConfig = Pick<TelegramConfig, 'owners' | 'allow' | 'pairing' | 'groups'>;
