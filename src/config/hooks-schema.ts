/**
 * Config schema for `hooks`: named webhooks served at `POST /hooks/<name>`, each with its own secret, and an
 * optional listener of their own (`listen`, a reserved name) that answers only `/hooks/*`. Standalone, so the
 * config's schema can take it as one key. Objects are strict: an unknown key is an error naming the key.
 *
 *   "hooks": {
 *     "listen": { "host": "127.0.0.1", "port": 8788 },
 *     "ci":     { "kind": "github", "secret": "...", "project": "api", "unowned": "default" },
 *     "deploy": { "secret": "...", "prompt": "Deploy of {{service}} finished: {{status}}", "deliver": "telegram:42" }
 *   }
 *
 * kind github: GitHub's X-Hub-Signature-256 and X-GitHub-Delivery; its PR events go to the conversation that owns
 * the PR's branch (the shepherd), other events through `prompt`. kind generic: any other sender, signed with
 * X-Rudder-Signature (hooks/signature.ts says how).
 */
import { z } from 'zod';
import { isLoopbackHost } from '../security/hosts.js';
import { templateProblems } from './hook-template.js';
import {
  conversationIdSchema,
  type KnownNames,
  type ReferenceProblem,
  scheduleNameSchema,
  targetProblems,
} from './schedules-schema.js';

/**
 * The GitHub events the pull-request shepherd reads (hooks/github/); a github hook's `events` picks among them.
 * A failing check run also fails its check suite: the default takes the run alone, so one failure is one message.
 */
export const SHEPHERD_EVENTS = [
  'check_run',
  'check_suite',
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'issue_comment',
] as const;

export type ShepherdEventName = (typeof SHEPHERD_EVENTS)[number];

/** The events a github hook takes when it names none. */
export const DEFAULT_SHEPHERD_EVENTS: readonly ShepherdEventName[] = SHEPHERD_EVENTS.filter((e) => e !== 'check_suite');

/** The name the listener's settings take inside `hooks`; no hook may have it. */
export const LISTEN_KEY = 'listen';

export const listenSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535),
    /** Serve on a non-loopback address (plain HTTP to the network): must be said out loud. */
    exposed: z.boolean().default(false),
  })
  .strict()
  .superRefine((l, ctx) => {
    if (!l.exposed && !isLoopbackHost(l.host))
      ctx.addIssue({
        code: 'custom',
        path: ['exposed'],
        message:
          `${l.host} is not a loopback address: webhooks would be served over plain HTTP to the network. Put a ` +
          'TLS proxy or tunnel in front and set exposed to true to mean it, or use 127.0.0.1',
      });
  });

export const hookSchema = z
  .object({
    /** github: GitHub's signature and delivery id; generic: X-Rudder-Signature with a timestamp. */
    kind: z.enum(['github', 'generic']).default('generic'),
    /** The HMAC-SHA256 key the sender signs with; never logged, never stored. */
    secret: z.string().min(16, 'must be at least 16 characters; make one with: openssl rand -hex 32'),
    /** The message made of a delivery: `{{a.b.c}}` fields from its JSON body; none: the body as JSON. */
    prompt: z.string().trim().min(1, 'is empty').max(20_000).optional(),
    /** The conversation deliveries go to: `<channel>:<chat id>`. */
    deliver: conversationIdSchema.optional(),
    /** The project: a github hook's PR events go to the conversation owning the PR's branch in it. */
    project: z.string().min(1).optional(),
    /** github: the events taken (others are answered 200 and dropped with a log line). */
    events: z.array(z.enum(SHEPHERD_EVENTS)).min(1).optional(),
    /** github: an event for a branch no conversation owns goes to the project's default conversation, or is dropped. */
    unowned: z.enum(['default', 'drop']).default('drop'),
    /** github: comments and reviews by these logins are ignored (the account the agent's own comments come from). */
    ignoreUsers: z.array(z.string().min(1)).default([]),
    enabled: z.boolean().default(true),
  })
  .strict()
  .superRefine((h, ctx) => {
    for (const problem of h.prompt === undefined ? [] : templateProblems(h.prompt))
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: problem });
    if (h.deliver === undefined && h.project === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['deliver'],
        message: 'is required (or set project): say where deliveries go, e.g. "deliver": "telegram:12345"',
      });
    if (h.kind === 'github') {
      if (h.unowned === 'default' && h.project === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['unowned'],
          message: '"default" needs project: whose default conversation?',
        });
      return;
    }
    const githubOnly = { events: h.events !== undefined, ignoreUsers: h.ignoreUsers.length > 0 };
    for (const [key, set] of Object.entries(githubOnly))
      if (set) ctx.addIssue({ code: 'custom', path: [key], message: 'is for kind github only' });
  });

export const hooksSchema = z
  .object({ [LISTEN_KEY]: listenSchema.optional() })
  .catchall(hookSchema)
  .superRefine((hooks, ctx) => {
    for (const name of Object.keys(hooks)) {
      if (name === LISTEN_KEY) continue;
      const r = scheduleNameSchema.safeParse(name);
      if (!r.success)
        ctx.addIssue({ code: 'custom', path: [name], message: `a hook's name ${r.error.issues[0]?.message}` });
    }
  });

export type HookConfig = z.infer<typeof hookSchema>;
export type HooksConfig = z.infer<typeof hooksSchema>;
export type ListenConfig = z.infer<typeof listenSchema>;

/** The hook of a name, or undefined for an unknown one (and for the listener's settings). */
export function hookNamed(hooks: HooksConfig, name: string): HookConfig | undefined {
  if (name === LISTEN_KEY || !Object.hasOwn(hooks, name)) return undefined;
  return hooks[name] as HookConfig;
}

/** What the rest of the config must hold for the hooks: their projects and the channels they deliver to. */
export function hookReferenceProblems(hooks: HooksConfig, known: KnownNames): ReferenceProblem[] {
  return Object.keys(hooks).flatMap((name) => {
    const hook = hookNamed(hooks, name);
    return hook ? targetProblems(['hooks', name], hook, known) : [];
  });
}
