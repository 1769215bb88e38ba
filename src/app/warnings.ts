/**
 * What the operator is warned of at start, on the terminal and in the log: a config an agent can
 * edit (it lies in a directory an agent of this machine works in), a page served over plain HTTP
 * beyond this machine, passed variables that look like secrets, claude with no credentials (the check
 * doctor makes: no key and no login), and an agent binary that is missing or broken (the page runs
 * without it, and says so too).
 */
import { LOGIN_FIX } from '../agents/claude/api-failure.js';
import { authSources } from '../agents/claude/auth-sources.js';
import { claudeEnv, passEnvWarning } from '../agents/claude/env.js';
import type { BinaryCheck } from '../agents/common/binary-check.js';
import type { LoadedConfig } from '../config/load.js';
import { isInside } from '../config/projects.js';
import type { Config } from '../config/schema.js';
import { readNodes } from '../nodes/credentials.js';
import type { Logger } from '../ops/logger.js';
import { projectAgent, projectSet } from '../projects/projects.js';
import { isLoopbackHost } from '../security/hosts.js';

/** A line for the person on the terminal. */
export const say = (line: string) => process.stderr.write(`rudder: ${line}\n`);

/** Said once on the terminal; the log line is marked shown so its pretty copy is not printed again. */
function warn(log: Logger, w: string, fields: Record<string, unknown> = {}): void {
  say(`warning: ${w}`);
  log.warn({ shown: true, ...fields }, w);
}

/** The first directory an agent of this machine works in that holds `file`, with what it is to the person. */
function agentDirHolding(cfg: Config, file: string, startDir: string): { dir: string; what: string } | undefined {
  for (const p of projectSet(cfg, startDir).projects) {
    if (p.node) continue; // a node's agents work on the node, never here
    const dirs = [p.path, p.worktrees ? p.worktrees.dir : undefined];
    const dir = dirs.find((d) => d && isInside(file, d));
    if (dir) return { dir, what: p.implicit ? "the agent's working directory" : `project ${p.name}'s directory` };
  }
  return undefined;
}

/** A config an agent can edit (one in a directory an agent works in), and a page served beyond this machine. */
export function configWarnings(loaded: LoadedConfig, startDir = process.cwd()): string[] {
  const out: string[] = [];
  const cfg = loaded.config;
  const held = loaded.file ? agentDirHolding(cfg, loaded.file, startDir) : undefined;
  if (held) {
    out.push(
      `${loaded.file} is inside ${held.what} (${held.dir}), so the agent can edit it. Edits to ` +
        `steering, log.level and queue modes apply at once; every other key waits for a restart, so read ` +
        `the file before restarting. To keep it out of reach, move it to $RUDDER_HOME/config.json or let ` +
        `the agent work elsewhere.`,
    );
  }
  if (cfg.web.enabled && cfg.web.exposed && !isLoopbackHost(cfg.web.host)) {
    out.push(
      `web.exposed: the page and API are served on ${cfg.web.host}:${cfg.web.port} over plain HTTP. Anyone ` +
        `who can reach that port can try the token, and the token and every message cross the network ` +
        `unencrypted. Reach it through an HTTPS reverse proxy or a private network (WireGuard, Tailscale) ` +
        `and list that name in web.allowedHosts; see the README.`,
    );
  }
  return out;
}

export function warnAboutConfig(loaded: LoadedConfig, log: Logger): void {
  const pw = passEnvWarning({ passVars: loaded.config.agent.passEnv, extra: loaded.config.agent.env });
  for (const w of [...configWarnings(loaded), ...(pw ? [pw] : [])]) warn(log, w);
}

export function warnAboutBinary(c: BinaryCheck, log: Logger): void {
  if (c.ok) return;
  process.stderr.write(
    `warning: ${c.problem} ${c.agent} conversations cannot start until this is fixed (fix: ${c.fix})\n`,
  );
  log.warn(
    { shown: true, agent: c.agent, problem: c.problem, fix: c.fix },
    'an agent binary is missing or broken; its conversations cannot start',
  );
}

/** A project pinned to a node no `rudder node add` made: its messages would wait for a node that cannot join. */
export function warnAboutNodes(loaded: LoadedConfig, dataDir: string, log: Logger): void {
  const cfg = loaded.config;
  if (!cfg.nodes) return;
  const added = readNodes(dataDir);
  for (const [project, p] of Object.entries(cfg.projects ?? {})) {
    if (!p.node || p.node in added) continue;
    const w =
      `project "${project}" runs on node ${p.node}, which is not added yet: its messages wait until that node ` +
      `runs. Run \`rudder node add ${p.node}\` here, then \`rudder node join\` and \`rudder node\` on that machine.`;
    warn(log, w, { project, node: p.node });
  }
}

/** Claude runs here for the agent or a project of this machine (a node's projects run on the node). */
function claudeRunsHere(cfg: Config): boolean {
  return projectSet(cfg).projects.some((p) => !p.node && projectAgent(cfg.agent, p).backend.startsWith('claude-'));
}

/** Claude with no key and no login: the first message would fail, so say it now, with the fix. */
export function authWarning(cfg: Config, inherited: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!claudeRunsHere(cfg)) return undefined;
  const env = claudeEnv(cfg.agent, inherited);
  if (authSources(env).length) return undefined;
  const home = env.HOME ?? 'its HOME';
  return (
    `claude has no credentials: no API key is set and it is not logged in (HOME=${home}), so every message ` +
    `will fail. Fix: ${LOGIN_FIX}`
  );
}

export function warnAboutAuth(cfg: Config, log: Logger): void {
  const w = authWarning(cfg);
  if (w) warn(log, w);
}
