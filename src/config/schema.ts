/**
 * The configuration file (rudder.config.json, or $RUDDER_HOME/config.json), validated with zod.
 * Objects are strict: an unknown key is an error that names the key, never a silently ignored typo.
 * Every key is documented in the README.
 */
import { z } from 'zod';
import { PERMISSION_MODES } from '../agents/claude/args.js';
import { channelsSchema, queueModeSchema, sttSchema } from './channels-schema.js';

export { queueModeSchema };
export type QueueMode = z.infer<typeof queueModeSchema>;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** The claude-tmux backend: the TUI in a tmux pane (ignored by the other backends). */
export const tmuxSchema = z
  .object({
    /** The tmux server Rudder's panes live on (`tmux -L <socket>`), apart from the user's own. */
    socket: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be 1-100 of A-Z a-z 0-9 _ -').default('rudder'),
    /** Pane size; a wide pane keeps lines from wrapping, which keeps the pane readable. */
    width: z.number().int().min(80).max(1000).default(200),
    height: z.number().int().min(24).max(500).default(50),
    /** Messages longer than this (UTF-8 bytes) are saved to a file and a reference to it is typed. */
    pasteFileThresholdBytes: z.number().int().min(1024).max(16 * 1024 * 1024).default(32 * 1024),
    /** How long a message waits for the pane to take input (or a menu to be answered) before the person is told. */
    readyTimeoutSeconds: z.number().positive().max(3600).default(30),
    /** Extra Enter presses when a typed message does not show up in the transcript. */
    arrivalRetries: z.number().int().min(0).max(10).default(3),
    /** How long each delivery attempt waits for the transcript. */
    arrivalTimeoutSeconds: z.number().positive().max(120).default(5),
    /** Tool uses approved without asking: `Tool` or `Tool(exact)` / `Tool(prefix*)`, e.g. `Bash(git status*)`. */
    autoAllow: z.array(z.string().min(1)).default([]),
  })
  .strict();

export const agentSchema = z
  .object({
    /** claude-stream: headless persistent process; claude-tmux: the interactive TUI in tmux. */
    backend: z.enum(['claude-stream', 'claude-tmux']).default('claude-stream'),
    /** Path to the claude binary; otherwise RUDDER_CLAUDE_BIN, then claude on PATH, then the bundled one. */
    claudeBin: z.string().min(1).optional(),
    /** The agent's working directory; defaults to the directory Rudder was started in. */
    cwd: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    permissionMode: z.enum(PERMISSION_MODES).default('relay'),
    allowedTools: z.array(z.string().min(1)).default([]),
    disallowedTools: z.array(z.string().min(1)).default([]),
    appendSystemPrompt: z.string().optional(),
    /** Extra environment for the agent, set last (e.g. ANTHROPIC_BASE_URL for a proxy). */
    env: z.record(envName, z.string()).default({}),
    /** Inherited CLAUDE_* / ANTHROPIC_* variables allowed through to the agent. */
    passEnv: z.array(envName).default(['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN']),
    turnTimeoutSeconds: z.number().positive().default(1800),
    interruptGraceSeconds: z.number().positive().max(120).default(5),
    tmux: tmuxSchema.prefault({}),
  })
  .strict();

export const steeringSchema = z
  .object({
    /** Read per message: off, a message sent mid-turn waits in line instead of being steered; RUDDER_STEERING=off wins. */
    enabled: z.boolean().default(true),
    /** The queue mode of a conversation with no override. */
    mode: queueModeSchema.default('steer'),
    /** collect mode: messages arriving within this quiet window are merged into one turn. */
    collectWindowMs: z.number().int().min(0).max(60_000).default(1500),
    /** Queued messages per conversation before newer ones are merged into a summary. */
    queueCap: z.number().int().min(1).max(10_000).default(20),
    /** Idle agent processes kept warm between turns (0: none); unset, one per 2 GB of available memory, 2..8. */
    maxLive: z.number().int().min(0).optional(),
    /** Live sessions idle longer than this are stopped (values below 1 count as 1). */
    idleMinutes: z.number().default(20),
  })
  .strict();

export const fallbackSchema = z
  .object({
    /** OpenAI-compatible endpoint, e.g. Ollama at http://127.0.0.1:11434/v1. */
    baseURL: z.url(),
    model: z.string().min(1),
    apiKey: z.string().default('local'),
    timeoutSeconds: z.number().positive().max(600).default(60),
  })
  .strict();

export const webSchema = z
  .object({
    enabled: z.boolean().default(true),
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8787),
  })
  .strict();

export const configSchema = z
  .object({
    agent: agentSchema.prefault({}),
    steering: steeringSchema.prefault({}),
    fallback: fallbackSchema.optional(),
    web: webSchema.prefault({}),
    channels: channelsSchema.prefault({}),
    stt: sttSchema.optional(),
    log: z.object({ level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info') }).strict().prefault({}),
    /** On SIGTERM/SIGINT, in-flight turns get this long to finish before agents are stopped. */
    shutdownDrainSeconds: z.number().min(0).max(600).default(10),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type AgentConfig = z.infer<typeof agentSchema>;
export type TmuxConfig = z.infer<typeof tmuxSchema>;
export type SteeringConfig = z.infer<typeof steeringSchema>;
export type FallbackConfig = z.infer<typeof fallbackSchema>;
