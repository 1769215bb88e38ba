/**
 * The configuration file (rudder.config.json, or $RUDDER_HOME/config.json), validated with zod.
 * Objects are strict: an unknown key is an error that names the key, never a silently ignored typo.
 * Every key is documented in docs/configuration.md.
 */
import { z } from 'zod';
import { isLoopbackHost, splitHostPort } from '../security/hosts.js';
import { ACP_BACKENDS, acpConfigIssues, acpSchema } from './acp-schema.js';
import { channelsSchema, progressSchema, queueModeSchema, sttSchema, ttsSchema } from './channels-schema.js';
import { CONFIG_KEY, type JsonValue, secretKeyProblem } from './codex-config.js';
import { hookReferenceProblems, hooksSchema } from './hooks-schema.js';
import { nodeNameSchema, nodesSchema } from './nodes-schema.js';
import { PERMISSION_MODES } from './permission-modes.js';
import { type KnownNames, scheduleReferenceProblems, schedulesSchema } from './schedules-schema.js';

export { queueModeSchema };
export type QueueMode = z.infer<typeof queueModeSchema>;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** The claude-tmux backend: the TUI in a tmux pane (ignored by the other backends). */
export const tmuxSchema = z
  .object({
    /** The tmux server Rudder's panes live on (`tmux -L <socket>`), apart from the user's own. */
    socket: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be 1-100 of A-Z a-z 0-9 _ -')
      .default('rudder'),
    /** Pane size; a wide pane keeps lines from wrapping, which keeps the pane readable. */
    width: z.number().int().min(80).max(1000).default(200),
    height: z.number().int().min(24).max(500).default(50),
    /** Messages longer than this (UTF-8 bytes) are saved to a file and a reference to it is typed. */
    pasteFileThresholdBytes: z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .default(32 * 1024),
    /** How long a message waits for the pane to take input (or a menu to be answered) before the person is told. */
    readyTimeoutSeconds: z.number().positive().max(3600).default(30),
    /** Extra Enter presses when a typed message does not show up in the transcript. */
    arrivalRetries: z.number().int().min(0).max(10).default(3),
    /** How long each delivery attempt waits for the transcript. */
    arrivalTimeoutSeconds: z.number().positive().max(120).default(5),
    /** Tool uses approved without asking: `Tool` or `Tool(exact)` / `Tool(prefix*)`, e.g. `Bash(git status*)`. */
    autoAllow: z.array(z.string().min(1)).default([]),
    /**
     * The person's own tmux servers whose panes /sessions looks in for running Claude Code TUIs: socket names
     * (`tmux -L`; `default` is the one plain `tmux` uses) or socket paths (`tmux -S`).
     */
    discover: z
      .array(z.string().regex(/^([A-Za-z0-9_.-]{1,100}|\/[^\0]{1,1000})$/, 'must be a socket name or an absolute path'))
      .default(['default']),
  })
  .strict();

/** A value codex can take after `-c key=`: JSON without null (TOML has none). */
const tomlValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.array(tomlValueSchema), z.record(z.string(), tomlValueSchema)]),
);

/** The codex backend: Codex's app-server (ignored by the other backends). */
export const codexSchema = z
  .object({
    /** Path to the codex binary; otherwise RUDDER_CODEX_BIN, then codex on PATH, then the pinned @openai/codex. */
    bin: z.string().min(1).optional(),
    /** Dotted keys to JSON values, each passed to codex as one `-c key=value` (the value as a TOML literal). */
    config: z
      .record(z.string().regex(CONFIG_KEY, 'must be a dotted key of letters, digits, _ and - (a.b.c)'), tomlValueSchema)
      .default({})
      .superRefine((config, ctx) => {
        for (const key of Object.keys(config)) {
          const problem = secretKeyProblem(key);
          if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
        }
      }),
  })
  .strict();

/** The agent backends; each project may choose its own. */
export const BACKENDS = ['claude-stream', 'claude-tmux', 'codex', ...ACP_BACKENDS] as const;

export const agentSchema = z
  .object({
    /**
     * claude-stream: headless persistent process; claude-tmux: the TUI in tmux; codex: Codex's app-server; acp: the
     * ACP agent agent.acp.command names, acp:<agent> a known one (acp:gemini…).
     */
    backend: z.enum(BACKENDS).default('claude-stream'),
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
    /** Inherited variables the agent gets beyond the default set (agents/claude/env.ts); nothing else passes. */
    passEnv: z.array(envName).default([]),
    /** `--autocompact`: 'auto' (the model's context window) or a size in tokens (the CLI takes 100000 at least). */
    autocompact: z
      .union([z.literal('auto'), z.number().int().min(100_000, 'must be "auto" or at least 100000 tokens')])
      .default('auto'),
    turnTimeoutSeconds: z.number().positive().default(1800),
    interruptGraceSeconds: z.number().positive().max(120).default(5),
    tmux: tmuxSchema.prefault({}),
    codex: codexSchema.prefault({}),
    acp: acpSchema.prefault({}),
  })
  .strict();

/** A project name: used in /project, the web app and worktree branch names. */
export const projectNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

/**
 * Spending per project and local day, in USD as the agent reports it (Claude Code's total_cost_usd). Past it, new
 * turns wait (never dropped) until the day ends or an owner raises it with /budget; the owner is told.
 */
export const budgetSchema = z
  .object({
    dailyUsd: z.number().min(0).max(1_000_000),
  })
  .strict();

/**
 * A working directory with its own agent settings; each key given here replaces the one in `agent`.
 * A project on a node (`node`) is that node's: its directory and agent settings are in the node's own config (its
 * budget stays here: the front counts what the node reports).
 */
export const projectSchema = z
  .object({
    /** The directory the agent works in (absolute, relative to where Rudder starts, or ~/...). */
    path: z.string().min(1).optional(),
    /** The node (`rudder node`) this project lives on; its conversations' agents run there. */
    node: nodeNameSchema.optional(),
    model: z.string().min(1).optional(),
    permissionMode: z.enum(PERMISSION_MODES).optional(),
    backend: z.enum(BACKENDS).optional(),
    allowedTools: z.array(z.string().min(1)).optional(),
    disallowedTools: z.array(z.string().min(1)).optional(),
    appendSystemPrompt: z.string().optional(),
    /** Each conversation gets its own git worktree and branch; `{dir}` says where the worktrees go. */
    worktrees: z.union([z.boolean(), z.object({ dir: z.string().min(1) }).strict()]).default(false),
    /** This project's daily budget; replaces the top-level `budget`. */
    budget: budgetSchema.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.node === undefined) {
      if (p.path === undefined) ctx.addIssue({ code: 'custom', path: ['path'], message: 'is required (or set node)' });
      return;
    }
    // The budget is the front's to keep (it counts the turns the node reports); the rest is the node's.
    const local = Object.entries(p).filter(
      ([k, v]) => k !== 'node' && k !== 'budget' && v !== undefined && v !== false,
    );
    for (const [k] of local)
      ctx.addIssue({
        code: 'custom',
        path: [k],
        message: `a project on node ${p.node} takes its ${k} from that node's own config; remove it here`,
      });
  });

export const steeringSchema = z
  .object({
    /**
     * Read per message: off, a message sent mid-turn waits in line instead of being steered; RUDDER_STEERING=off wins.
     */
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
    /**
     * Keep one agent process started ahead for the next new conversation (one more process, idle); unset,
     * on when the machine's memory has room for it beside the warm cap (one per 2 GB).
     */
    spareProcess: z.boolean().optional(),
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
    /** Serve on a non-loopback address (plain HTTP, reachable from the network): must be said out loud. */
    exposed: z.boolean().default(false),
    /** Host names a reverse proxy forwards under ("name" for any port, "name:port"); others get 421. */
    allowedHosts: z
      .array(
        z
          .string()
          .refine(
            (h) => splitHostPort(h) !== undefined,
            'must be a host name or address, optionally with :port (no scheme, no path)',
          ),
      )
      .default([]),
  })
  .strict()
  .superRefine((w, ctx) => {
    if (!w.exposed && !isLoopbackHost(w.host)) {
      ctx.addIssue({
        code: 'custom',
        path: ['exposed'],
        message:
          `web.host ${w.host} is not a loopback address: the page and API would be served over plain ` +
          `HTTP to the network. Set web.exposed to true to mean it (the README says how to reach the page ` +
          `from a phone safely), or use 127.0.0.1`,
      });
    }
  });

/** Web Push: the page's notifications when the agent needs the person (README "Notifications"). */
export const pushSchema = z
  .object({
    /** Off: no keys are made, the page offers no notifications and nothing is pushed. */
    enabled: z.boolean().default(true),
    /** A turn that ends after running at least this long is pushed ("done"); shorter ones are not. */
    longTurnSeconds: z.number().min(0).max(86_400).default(60),
    /** The VAPID contact the push services see (mailto: or https:); some refuse a made-up address. */
    subject: z
      .string()
      .regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/, 'must be a mailto: address or an https: URL')
      .default('mailto:rudder@example.invalid'),
  })
  .strict();

/** Reviewing the agent's work (README "Reviewing the agent's work"). */
export const reviewSchema = z
  .object({
    /** Run the repository's git hooks on the commits, merges and pushes made from the page or a chat. */
    runHooks: z.boolean().default(false),
  })
  .strict();

export const storeSchema = z
  .object({
    /** normal: a commit survives a crash of Rudder; full: also a power cut (one fsync per commit). */
    synchronous: z.enum(['normal', 'full']).default('normal'),
    /**
     * The writes of one event-loop turn share one commit; acknowledgements, replies and the hand-off of a
     * message to the agent wait for it. On by default; false commits every write on its own.
     */
    groupCommit: z.boolean().default(true),
  })
  .strict();

export const configSchema = z
  .object({
    agent: agentSchema.prefault({}),
    /** Named working directories; without it, agent.cwd is the one implicit project. */
    projects: z.record(projectNameSchema, projectSchema).optional(),
    /** The project of a conversation that has not chosen one (default: the first in `projects`). */
    defaultProject: projectNameSchema.optional(),
    /** The daily budget of every project that sets none of its own (each project counted on its own). */
    budget: budgetSchema.optional(),
    steering: steeringSchema.prefault({}),
    fallback: fallbackSchema.optional(),
    web: webSchema.prefault({}),
    store: storeSchema.prefault({}),
    push: pushSchema.prefault({}),
    review: reviewSchema.prefault({}),
    channels: channelsSchema.prefault({}),
    /** How chats show a running turn (each channel may override keys in its own `progress`). */
    progress: progressSchema.prefault({}),
    stt: sttSchema.optional(),
    /** Replies to voice notes also as voice notes (and a play button on the page's replies). */
    tts: ttsSchema.optional(),
    /** Agents on several machines: the NATS server and presence (README: Several machines). */
    nodes: nodesSchema.optional(),
    /** Prompts a clock sends, each into its conversation (docs/schedules.md). */
    schedules: schedulesSchema.default({}),
    /** Webhooks served at POST /hooks/<name>, and their own listener (docs/schedules.md). */
    hooks: hooksSchema.default({}),
    log: z
      .object({ level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info') })
      .strict()
      .prefault({}),
    /** On SIGTERM/SIGINT, in-flight turns get this long to finish before agents are stopped. */
    shutdownDrainSeconds: z.number().min(0).max(600).default(10),
    /**
     * At start, how long to wait for the chat channels before running without those not connected yet (they keep
     * trying).
     */
    channelStartTimeoutSeconds: z.number().min(0).max(600).default(10),
  })
  .strict()
  .superRefine((c, ctx) => {
    const known = knownNames(c);
    for (const p of [...scheduleReferenceProblems(c.schedules, known), ...hookReferenceProblems(c.hooks, known)])
      ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
    if (c.nodes) return;
    for (const [name, p] of Object.entries(c.projects ?? {}))
      if (p.node)
        ctx.addIssue({
          code: 'custom',
          path: ['projects', name, 'node'],
          message: `project ${name} lives on node ${p.node}, but there is no nodes section (add "nodes": {})`,
        });
  })
  .superRefine((c, ctx) => {
    for (const issue of acpConfigIssues(c)) ctx.addIssue({ code: 'custom', ...issue });
  });

/** The projects (without a projects section, the one implicit project, "default") and the channels configured. */
export function knownNames(c: {
  projects?: Record<string, unknown>;
  channels: Record<string, unknown>;
  web: { enabled: boolean };
}): KnownNames {
  const channels = Object.keys(c.channels).filter((k) => c.channels[k] !== undefined);
  return {
    projects: c.projects ? Object.keys(c.projects) : ['default'],
    channels: c.web.enabled ? ['web', ...channels] : channels,
  };
}

export type Config = z.infer<typeof configSchema>;
export type AgentConfig = z.infer<typeof agentSchema>;
export type ProjectConfig = z.infer<typeof projectSchema>;
export type TmuxConfig = z.infer<typeof tmuxSchema>;
export type CodexConfig = z.infer<typeof codexSchema>;
export type AcpConfig = z.infer<typeof acpSchema>;
export type SteeringConfig = z.infer<typeof steeringSchema>;
export type StoreConfig = z.infer<typeof storeSchema>;
export type PushConfig = z.infer<typeof pushSchema>;
export type FallbackConfig = z.infer<typeof fallbackSchema>;
export type BudgetConfig = z.infer<typeof budgetSchema>;
export type { NodesConfig } from './nodes-schema.js';
