/**
 * The ACP backends (any agent that speaks the Agent Client Protocol over stdio): `acp`, whose command
 * agent.acp.command names, and one named preset per agent Rudder knows (agents/acp/presets.ts), each
 * with its command, package and quirks. `agent.acp` holds what a person may set for them.
 */
import { z } from 'zod';

/** The agents Rudder knows by name: `backend: "acp:<name>"`. */
export const ACP_PRESET_NAMES = ['claude', 'codex', 'gemini', 'qwen', 'copilot'] as const;

export const ACP_BACKENDS = ['acp', 'acp:claude', 'acp:codex', 'acp:gemini', 'acp:qwen', 'acp:copilot'] as const;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** agent.acp: the ACP backends' settings (ignored by the other backends). */
export const acpSchema = z
  .object({
    /**
     * The agent's command, a path or a name on PATH. Required with backend "acp"; with a preset it replaces the
     * preset's command (its quirks kept).
     */
    command: z.string().min(1).optional(),
    /** Its arguments; a preset's own (e.g. ["--acp"]) when not set. */
    args: z.array(z.string()).optional(),
    /** Environment for the agent, set last (its API key, its endpoint). */
    env: z.record(envName, z.string()).default({}),
    /** The agent as people read it in messages and status ("Goose"); a preset's name by default. */
    name: z.string().min(1).max(60).optional(),
    /** Serve terminal/* (commands the agent runs through Rudder, in the conversation's directory). Off by default. */
    terminal: z.boolean().default(false),
  })
  .strict();

type Issue = { path: Array<string | number>; message: string };

interface AcpView {
  agent: { backend: string; acp: { command?: string } };
  projects?: Record<string, { backend?: string; node?: string }>;
}

/** The ACP backends a config runs here (agent.backend's and its local projects'), each with where it is set. */
function acpBackendsOf(c: AcpView): Map<string, string> {
  const found = new Map<string, string>();
  const add = (backend: string | undefined, where: string) => {
    if (backend && (ACP_BACKENDS as readonly string[]).includes(backend) && !found.has(backend))
      found.set(backend, where);
  };
  add(c.agent.backend, 'agent.backend');
  for (const [name, p] of Object.entries(c.projects ?? {})) if (!p.node) add(p.backend, `projects.${name}.backend`);
  return found;
}

/**
 * agent.acp.command against the backends: required by `acp`; and since it replaces a preset's command too, it
 * cannot serve two different ACP agents at once.
 */
export function acpConfigIssues(c: AcpView): Issue[] {
  const used = acpBackendsOf(c);
  const path = ['agent', 'acp', 'command'];
  const where = used.get('acp');
  if (where && !c.agent.acp.command)
    return [
      {
        path,
        message:
          `is required: ${where} is "acp", which runs the command agent.acp.command names (with agent.acp.args), ` +
          `or name a known agent instead (${ACP_BACKENDS.slice(1).join(', ')})`,
      },
    ];
  if (c.agent.acp.command && used.size > 1)
    return [
      {
        path,
        message:
          `replaces the command of every ACP backend, and this config runs ${[...used.keys()].join(' and ')}: ` +
          'remove it (each known agent finds its own command) or run one ACP agent',
      },
    ];
  return [];
}
