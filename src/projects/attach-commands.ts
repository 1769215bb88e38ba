/**
 * The sessions that already run, for one conversation: the "Running now" part of /sessions (the
 * Claude Code TUIs in the person's tmux panes, numbered, and the claude processes that cannot be
 * attached, with why; running.ts finds them).
 */
import type { ProjectCommandDeps } from './command-deps.js';
import { where } from './node-sessions.js';
import type { Project } from './projects.js';
import { type Running, type RunningPane, runningIn } from './running.js';

const clip = (s: string, n: number) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

const STATE_TEXT: Record<RunningPane['state'], string> = {
  ready: 'ready',
  busy: 'busy',
  menu: 'a menu is open',
  'not-ready': 'not ready',
};

/** What runs now in the project's directories; a string says why nothing can be looked at. */
async function running(d: ProjectCommandDeps, p: Project, dirs: string[]): Promise<Running[] | string> {
  if (p.node) return `Sessions running on node ${p.node} are not looked for yet: /attach works on this machine only.`;
  const servers = d.tmuxServers?.() ?? ['default'];
  const list = await runningIn(dirs, { servers, configDir: d.projects.configDir() });
  d.projects.runningPanes.set(
    d.conversationId,
    list.filter((r): r is RunningPane => r.attachable),
  );
  return list;
}

/** The "Running now" lines of /sessions: the attachable panes numbered for /attach, then the rest with why. */
export async function runningSection(
  d: ProjectCommandDeps,
  p: Project,
  dirs: string[],
  group: boolean,
): Promise<string[]> {
  // A node's panes are the node's to look at: not yet asked over the wire.
  if (p.node) return [];
  const list = await running(d, p, dirs);
  if (typeof list === 'string') return [list];
  if (!list.length) return [`Running now: no Claude Code in ${where(p)} (tmux servers looked in: ${servers(d)}).`];
  const panes = list.filter((r): r is RunningPane => r.attachable);
  const lines = panes.map((r, i) => {
    const last = !group && r.lastPrompt ? ` · last prompt: “${clip(r.lastPrompt, 60)}”` : '';
    const session = r.sessionId ?? '(no session yet: a startup question shows)';
    return `${i + 1}. pane ${r.label} · ${STATE_TEXT[r.state]} · ${session} · ${r.cwd}${last}`;
  });
  const others = list
    .filter((r) => !r.attachable)
    .map((r) => `- ${r.sessionId} · ${r.cwd}: running, not attachable: ${r.why}`);
  return [
    `Running now in ${p.name}:`,
    ...lines,
    ...others,
    ...(panes.length ? ['Send /attach <number> to drive one of these panes from here.'] : []),
  ];
}

function servers(d: ProjectCommandDeps): string {
  return (d.tmuxServers?.() ?? ['default']).join(', ');
}
