/**
 * The sessions that already run, for one conversation: the "Running now" part of /sessions (the
 * Claude Code TUIs in the person's tmux panes, and the claude processes that cannot be attached, with
 * why), /attach <n> (the conversation drives that live pane from its next message on, and follows
 * what is typed there at once) and /detach (lets go; the pane goes on as it was). The pane is found
 * again and checked to hold the same claude before it is attached (running.ts, store/attachments.ts).
 */
import type { ProjectCommandDeps } from './command-deps.js';
import { where } from './node-sessions.js';
import type { Project } from './projects.js';
import { type Running, type RunningPane, runningIn } from './running.js';
import { paneHoldsSession } from './terminals.js';

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

/** What runs now in the project's directories (a node's: nothing, not yet asked over the wire). */
async function running(d: ProjectCommandDeps, p: Project, dirs: string[]): Promise<Running[]> {
  const list = p.node ? [] : await runningIn(dirs, { servers: servers(d), configDir: d.projects.configDir() });
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
  if (!list.length)
    return [`Running now: no Claude Code in ${where(p)} (tmux servers looked in: ${servers(d).join(', ')}).`];
  const attached = d.store.attachments.get(d.conversationId);
  const panes = list.filter((r): r is RunningPane => r.attachable);
  const lines = panes.map((r, i) => {
    const last = !group && r.lastPrompt ? ` · last prompt: “${clip(r.lastPrompt, 60)}”` : '';
    const mine = attached?.kind === 'pane' && attached.paneId === r.paneId && attached.socket === r.socket;
    const session = r.sessionId ?? '(no session yet: a startup question shows)';
    return `${i + 1}. pane ${r.label} · ${STATE_TEXT[r.state]} · ${session} · ${r.cwd}${last}${
      mine ? ' [attached here]' : ''
    }`;
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

/** The person's tmux servers looked in (agent.tmux.discover). */
function servers(d: ProjectCommandDeps): readonly string[] {
  return d.tmuxServers?.() ?? ['default'];
}

/** /attach <n>: the conversation drives the pane from now on; the pane is checked to still hold that claude. */
export async function attach(d: ProjectCommandDeps, p: Project, dirs: string[], args: string): Promise<string> {
  const ref = args.trim();
  if (!/^\d{1,3}$/.test(ref)) return 'Usage: /attach <number from the "Running now" part of /sessions>.';
  if (d.busy())
    return `A turn is running in ${p.name}. Wait for it to end or /stop it, then send /attach ${ref} again.`;
  const shown = d.projects.runningPanes.get(d.conversationId);
  const picked = shown?.[Number(ref) - 1];
  if (!picked) return `There is no running session ${ref} in the list. Send /sessions to see them.`;
  const pane = await findAgain(d, p, dirs, picked);
  if (!pane)
    return `The claude in pane ${picked.label} is no longer running there. Send /sessions to see what runs now.`;
  const other = d.store.attachments
    .all()
    .find((a) => a.kind === 'pane' && a.conversationId !== d.conversationId && a.paneId === pane.paneId);
  if (other && paneHoldsSession(other))
    return `Pane ${pane.label} is driven by conversation ${other.conversationId}: one pane, one conversation.`;
  await d.release(`attaching to pane ${pane.label}`);
  const { socket, paneId, label, pid, procStart, configDir, cwd, sessionId } = pane;
  d.store.attachments.put({
    conversationId: d.conversationId,
    kind: 'pane',
    ...{ socket, paneId, label, pid, configDir, cwd },
    procStart: procStart ?? null,
    sessionId: sessionId ?? null,
  });
  if (pane.sessionId) d.store.setSessionId(d.conversationId, pane.sessionId);
  d.follow?.();
  return (
    `This conversation now drives the claude in pane ${pane.label} (${pane.sessionId ?? 'no session yet'}, ` +
    `${pane.cwd}). A message is typed there only when its box takes input; what is typed in the terminal shows ` +
    'here. /stop sends it Escape; /detach lets go, and the pane goes on as it is.'
  );
}

/** The pane picked from the list, found again now with the same claude in it. */
async function findAgain(
  d: ProjectCommandDeps,
  p: Project,
  dirs: string[],
  picked: RunningPane,
): Promise<RunningPane | undefined> {
  const now = await running(d, p, dirs);
  return now.find(
    (r): r is RunningPane =>
      r.attachable && r.paneId === picked.paneId && r.socket === picked.socket && r.pid === picked.pid,
  );
}

/** /detach: the conversation lets go of the pane (it goes on untouched). */
export async function detach(d: ProjectCommandDeps): Promise<string> {
  const row = d.store.attachments.get(d.conversationId);
  if (row?.kind !== 'pane') return 'This conversation is not attached to a terminal pane.';
  if (d.busy())
    return `A turn is running in pane ${row.label}. Wait for it to end or /stop it, then send /detach again.`;
  d.store.attachments.put({ ...row, kind: 'detached' });
  await d.release(`detached from pane ${row.label}`);
  const held = paneHoldsSession(row);
  return (
    `Let go of pane ${row.label}: it goes on as it was. ` +
    (held
      ? `Your next message resumes session ${row.sessionId ?? ''} here once the pane has closed it; while it is ` +
        'open there, it is refused (two programs writing one session corrupt it).'
      : 'Your next message runs here.')
  );
}
