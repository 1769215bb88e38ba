/**
 * What the operator is warned of at start, on the terminal and in the log: a config the agent can
 * edit, a page served over plain HTTP beyond this machine, passed variables that look like secrets,
 * and an agent binary that is missing or broken (the page runs without it, and says so too).
 */
import path from 'node:path';
import { passEnvWarning } from '../agents/claude/env.js';
import type { BinaryCheck } from '../agents/common/binary-check.js';
import type { LoadedConfig } from '../config/load.js';
import { readNodes } from '../nodes/credentials.js';
import type { Logger } from '../ops/logger.js';
import { isLoopbackHost } from '../security/hosts.js';

/** A line for the person on the terminal. */
export const say = (line: string) => process.stderr.write(`rudder: ${line}\n`);

/** The config in the agent's working directory can be edited by the agent: say what that means. */
function configWarnings(loaded: LoadedConfig): string[] {
  const out: string[] = [];
  const cfg = loaded.config;
  if (loaded.file) {
    const cwd = path.resolve(cfg.agent.cwd ?? process.cwd());
    const rel = path.relative(cwd, loaded.file);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
      out.push(
        `${loaded.file} is inside the agent's working directory (${cwd}), so the agent can edit it. Edits to ` +
          `steering, log.level and queue modes apply at once; every other key waits for a restart, so read ` +
          `the file before restarting. To keep it out of reach, move it to $RUDDER_HOME/config.json or set ` +
          `agent.cwd elsewhere.`,
      );
    }
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

/** Said once on the terminal; the log line is marked shown so its pretty copy is not printed again. */
export function warnAboutConfig(loaded: LoadedConfig, log: Logger): void {
  const pw = passEnvWarning({ passVars: loaded.config.agent.passEnv, extra: loaded.config.agent.env });
  for (const w of [...configWarnings(loaded), ...(pw ? [pw] : [])]) {
    say(`warning: ${w}`);
    log.warn({ shown: true }, w);
  }
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
    say(`warning: ${w}`);
    log.warn({ shown: true, project, node: p.node }, w);
  }
}
