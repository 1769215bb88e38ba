/**
 * The sessions that already run, for one conversation: the "Running now" part of /sessions (the
 * Claude Code TUIs in the person's tmux panes, and the claude processes that cannot be attached, with
 * why), /attach <n> (the conversation drives that live pane from its next message on, and follows
 * what is typed there at once) and /detach (lets go; the pane goes on as it was). The pane is found
 * again and checked to hold the same claude before it is attached (running.ts, store/attachments.ts).
 */
import type { ProjectCommandDeps } from './command-deps.js';
import { nodeAttach, nodeDetach, nodeRunning } from './node-panes.js';
import { unanswered, where } from './node-sessions.js';
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

/** What the list of running sessions needs: the person's tmux servers, the agent's config dir, a node to ask. */
export type RunningDeps = Pick<ProjectCommandDeps, 'projects' | 'tmuxServers' | 'askNode'> & {
  conversationId?: string;
};

/** A pane as a list showed it: found again by these before it is attached. */
export type PaneRef = Pick<RunningPane, 'socket' | 'paneId' | 'pid'>;

/** Why a pane is not attached: its claude is gone from it, or another conversation drives it. */
export interface PaneRefusal {
  code: 'PANE_GONE' | 'PANE_HELD';
  /** The sentence /attach answers. */
  text: string;
  /** What the code's own message (src/errors.ts) does not say: which pane, which conversation. */
  detail: string;
}

/** What runs now in the project's directories, and the tmux servers looked in (a node's project: the node's). */
export async function runningNow(
  d: RunningDeps,
  p: Project,
  dirs: string[],
): Promise<{ running: Running[]; servers: readonly string[] }> {
  if (p.node) return nodeRunning(d, p);
  const running = await runningIn(dirs, { servers: servers(d), configDir: d.projects.configDir() });
  return { running, servers: servers(d) };
}

/** What runs now, remembered as the conversation's numbered list for /attach <n>. */
async function running(d: ProjectCommandDeps, p: Project, dirs: string[]) {
  const now = await runningNow(d, p, dirs);
  d.projects.runningPanes.set(
    d.conversationId,
    now.running.filter((r): r is RunningPane => r.attachable),
  );
  return now;
}

/** Whether this conversation drives the pane: the node says so for its panes, the store for this machine's. */
function drivenHere(d: ProjectCommandDeps, r: RunningPane): boolean {
  if (r.attachedTo !== undefined) return r.attachedTo === d.conversationId;
  const attached = d.store.attachments.get(d.conversationId);
  return attached?.kind === 'pane' && attached.paneId === r.paneId && attached.socket === r.socket;
}

/** The "Running now" lines of /sessions: the attachable panes numbered for /attach, then the rest with why. */
export async function runningSection(
  d: ProjectCommandDeps,
  p: Project,
  dirs: string[],
  group: boolean,
): Promise<string[]> {
  let now: Awaited<ReturnType<typeof running>>;
  try {
    now = await running(d, p, dirs);
  } catch (err) {
    // A node that does not answer is said so; the rest of /sessions is still shown.
    if (!p.node) throw err;
    return [`Running now: ${unanswered((err as Error).message)}`];
  }
  const list = now.running;
  const place = p.node ? `${p.name} ${where(p)}` : where(p);
  if (!list.length)
    return [`Running now: no Claude Code in ${place} (tmux servers looked in: ${now.servers.join(', ')}).`];
  const panes = list.filter((r): r is RunningPane => r.attachable);
  const lines = panes.map((r, i) => {
    const last = !group && r.lastPrompt ? ` · last prompt: “${clip(r.lastPrompt, 60)}”` : '';
    const mine = drivenHere(d, r);
    const session = r.sessionId ?? '(no session yet: a startup question shows)';
    return `${i + 1}. pane ${r.label} · ${STATE_TEXT[r.state]} · ${session} · ${r.cwd}${last}${
      mine ? ' [attached here]' : ''
    }`;
  });
  const others = list
    .filter((r) => !r.attachable)
    .map((r) => `- ${r.sessionId} · ${r.cwd}: running, not attachable: ${r.why}`);
  return [
    `Running now in ${p.name}${p.node ? ` on node ${p.node}` : ''}:`,
    ...lines,
    ...others,
    ...(panes.length ? ['Send /attach <number> to drive one of these panes from here.'] : []),
  ];
}

/** The person's tmux servers looked in (agent.tmux.discover). */
function servers(d: RunningDeps): readonly string[] {
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
  if (p.node) {
    const onNode = await nodeAttach(d, p, picked).catch((err: Error) => err);
    if (onNode instanceof Error) return unanswered(onNode.message);
    return 'code' in onNode ? `${onNode.text} Send /sessions to see what runs now.` : attachedText(onNode);
  }
  const pane = await paneAgain(d, p, dirs, picked);
  if ('code' in pane) return `${pane.text} Send /sessions to see what runs now.`;
  const refused = await bindPane(d, pane);
  return refused ? refused.text : attachedText(pane);
}

/** The pane a list showed, found again now with the same claude in it (the same pid in the same pane). */
export async function paneAgain(
  d: RunningDeps,
  p: Project,
  dirs: string[],
  ref: PaneRef & { label?: string },
): Promise<RunningPane | PaneRefusal> {
  const { running: now } = await runningNow(d, p, dirs);
  const pane = now.find(
    (r): r is RunningPane => r.attachable && r.paneId === ref.paneId && r.socket === ref.socket && r.pid === ref.pid,
  );
  const label = ref.label ?? ref.paneId;
  return (
    pane ?? {
      code: 'PANE_GONE',
      text: `The claude in pane ${label} is no longer running there.`,
      detail: `Pane ${label}, claude pid ${ref.pid}: look at what runs now again.`,
    }
  );
}

/**
 * Makes the conversation drive the pane: its own session let go, the attachment stored, the pane followed.
 * One pane, one conversation: checked after the release and right before the row is written, with no wait
 * between them, so two attaches at once cannot both pass.
 */
export async function bindPane(d: ProjectCommandDeps, pane: RunningPane): Promise<PaneRefusal | undefined> {
  const held = heldBy(d, pane);
  if (held) return held;
  await d.release(`attaching to pane ${pane.label}`);
  const heldNow = heldBy(d, pane);
  if (heldNow) return heldNow;
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
  return undefined;
}

/** Another conversation than this one that drives the pane still (its claude has the session open there). */
export function heldBy(
  d: Pick<ProjectCommandDeps, 'store'> & { conversationId?: string },
  pane: RunningPane,
): PaneRefusal | undefined {
  const other = d.store.attachments
    .all()
    .find(
      (a) =>
        a.kind === 'pane' &&
        a.conversationId !== d.conversationId &&
        a.paneId === pane.paneId &&
        a.socket === pane.socket,
    );
  if (!other || !paneHoldsSession(other)) return undefined;
  return {
    code: 'PANE_HELD',
    text: `Pane ${pane.label} is driven by conversation ${other.conversationId}: one pane, one conversation.`,
    detail: `Pane ${pane.label} is driven by conversation ${other.conversationId}.`,
  };
}

/** What the conversation is told once it drives the pane. */
export function attachedText(pane: RunningPane): string {
  return (
    `This conversation now drives the claude in pane ${pane.label} (${pane.sessionId ?? 'no session yet'}, ` +
    `${pane.cwd}). A message is typed there only when its box takes input; what is typed in the terminal shows ` +
    'here. /stop sends it Escape; /detach lets go, and the pane goes on as it is.'
  );
}

/** /detach: the conversation lets go of the pane (it goes on untouched); a node's project: the node lets go. */
export async function detach(d: ProjectCommandDeps, p?: Project): Promise<string> {
  if (p?.node) {
    if (d.busy()) return 'A turn is running. Wait for it to end or /stop it, then send /detach again.';
    return nodeDetach(d, p);
  }
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
