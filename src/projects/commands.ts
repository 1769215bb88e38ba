/**
 * /project, /sessions, /resume and /worktree for one conversation. Each refuses while a turn runs
 * (the turn works in the old place; /stop it or wait) and releases the live session before it
 * changes where the next turn runs, so the next turn starts a process in the new place. A project
 * on a node has its sessions on that machine: the node lists them (node-sessions.ts).
 */
import fs from 'node:fs';
import { isRudderError } from '../errors.js';
import { attach, detach, runningSection } from './attach-commands.js';
import type { ProjectCommandDeps } from './command-deps.js';
import { nodeSessionFacts, nodeSessionList, where } from './node-sessions.js';
import { knownSession, type PastSessions, pastSessions, type SessionSource } from './past-sessions.js';
import type { Project } from './projects.js';
import { moveSession, nameOf } from './session-move.js';
import type { CliSession, OpenBy } from './sessions.js';
import { branchFor, removeWorktree, type WorktreeStatus, worktreeStatus } from './worktree.js';

export type { ProjectCommandDeps } from './command-deps.js';

const SESSIONS_SHOWN = 10;
/** A conversation that holds a session (its current one, or the one it keeps for a project). */
type SessionHolder = ReturnType<ProjectCommandDeps['store']['sessionHolders']>[number];
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const clip = (s: string, n: number) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

export class ProjectCommands {
  constructor(private readonly d: ProjectCommandDeps) {}

  private current(): Project {
    return this.d.projects.peek(this.d.conversationId);
  }

  private busyReply(again: string): string | undefined {
    if (!this.d.busy()) return undefined;
    return (
      `A turn is running in project ${this.current().name}. Wait for it to end or /stop it, then ` +
      `send ${again} again.`
    );
  }

  /** The directories whose sessions belong to this conversation's project: the project's own and its worktree. */
  private sessionDirs(p: Project): string[] {
    const wt = this.d.projects.worktreeOf(this.d.conversationId, p.name)?.worktree;
    return wt && fs.existsSync(wt) ? [p.path, wt] : [p.path];
  }

  async project(args: string): Promise<string> {
    const name = args.split(/\s+/)[0] ?? '';
    const mine = this.current();
    if (!name) {
      const set = this.d.projects.set();
      const lines = set.projects.map(
        (p) =>
          `${p.name === mine.name ? '→' : '  '} ${p.name} — ${where(p)}${
            p.worktrees ? ' (a worktree per ' + 'conversation)' : ''
          }${p.name === set.defaultName ? ' (default)' : ''}`,
      );
      return [`Projects (→ this conversation's):`, ...lines, 'Send /project <name> to move this conversation.'].join(
        '\n',
      );
    }
    const target = this.d.projects.find(name);
    if (!target)
      return `There is no project "${name}". Projects: ${this.d.projects
        .set()
        .projects.map((p) => p.name)
        .join(', ')}.`;
    if (target.name === mine.name && this.d.store.conversation(this.d.conversationId)?.project === mine.name)
      return `This conversation already works in ${mine.name} (${where(mine)}).`;
    const busy = this.busyReply(`/project ${name}`);
    if (busy) return busy;
    // Bound first, then released: a message arriving meanwhile finds the old session stopped and starts in the new
    // place.
    const { resumes } = this.d.projects.bind(this.d.conversationId, target.name);
    await this.d.release(`moved to project ${target.name}`);
    const wt = this.d.projects.worktreeOf(this.d.conversationId, target.name);
    const worktree = target.worktrees
      ? wt?.worktree
        ? ` Its worktree: ${wt.worktree} (branch ${wt.branch}).`
        : ` Its first turn there makes its own worktree on branch ${branchFor(this.d.conversationId)}.`
      : '';
    return (
      `This conversation now works in ${target.name} (${where(target)}). The next ` +
      `turn ${resumes ? `resumes the session it had there (${resumes})` : 'starts a new session there'}.${worktree}`
    );
  }

  /** Where the project's sessions are: its agent's own list (Codex's threads), else Claude Code's files. */
  private source(p: Project): SessionSource {
    return { history: this.d.history?.(p), configDir: this.d.projects.configDir() };
  }

  /** The project's sessions: read here, or asked of the node it lives on (a string says why not). */
  private async listOf(p: Project): Promise<PastSessions | string> {
    if (p.node) return nodeSessionList(this.d, p, SESSIONS_SHOWN);
    try {
      return await pastSessions(this.source(p), this.sessionDirs(p), SESSIONS_SHOWN);
    } catch (err) {
      return `The sessions of ${p.name} could not be listed: ${(err as Error).message}`;
    }
  }

  /**
   * The project's sessions. In a group every member reads the answer, so it shows no session's prompts or
   * messages (a terminal session's, another conversation's): when, the id and where it is open.
   */
  async sessions(o: { group: boolean } = { group: false }): Promise<string> {
    const p = this.current();
    const listed = await this.listOf(p);
    if (typeof listed === 'string') return listed;
    const { noun, sessions: list } = listed;
    this.d.projects.listings.set(
      this.d.conversationId,
      list.map((s) => s.id),
    );
    const now = await runningSection(this.d, p, this.sessionDirs(p), o.group);
    if (!list.length) return [...now, `No ${noun} in ${p.name} (${where(p)}) yet.`].join('\n');
    const mineId = this.d.store.conversation(this.d.conversationId)?.sessionId;
    const lines = list.map((s, i) => this.describe(s, i + 1, mineId, o.group));
    return [
      ...now,
      `${noun} in ${p.name} (${where(p)}), most recent first:`,
      ...lines,
      'Send /resume <number> to continue one here.',
      ...(o.group
        ? ['Prompts are not shown in a group; send /sessions in a private chat, or see them on the page.']
        : []),
    ].join('\n');
  }

  private describe(s: CliSession, n: number, mineId: string | null | undefined, group: boolean): string {
    const first = group ? '' : s.firstPrompt ? ` · “${clip(s.firstPrompt, 60)}”` : ' · (no prompt)';
    const last =
      s.lastMessage && !group
        ? ` — last (${s.lastMessage.role === 'user' ? 'you' : 'agent'}): “${clip(s.lastMessage.text, 60)}”`
        : '';
    const flags = [s.id === mineId ? 'this conversation' : '', s.openBy ? this.openText(s.openBy) : ''].filter(Boolean);
    return `${n}. ${ago(s.updatedAt)}${first}${last} · ${s.id}${flags.length ? ` [${flags.join('; ')}]` : ''}`;
  }

  private openText(o: OpenBy): string {
    if (o.entrypoint?.startsWith('node:')) return `open on node ${o.entrypoint.slice(5)}, pid ${o.pid}`;
    if (o.pid === this.d.ownPid()) return 'open here';
    // Rudder's agent processes are recorded with their conversation (or their tmux session).
    const rudder = this.d.store.processes().find((p) => p.pid === o.pid);
    if (rudder) return `open in another Rudder conversation (${rudder.conversationId}), pid ${o.pid}`;
    return `open in ${o.entrypoint === 'cli' ? 'an interactive claude' : 'a claude process'}, pid ${o.pid}`;
  }

  async resume(args: string): Promise<string> {
    const words = args.split(/\s+/).filter(Boolean);
    const force = words.includes('--force');
    const ref = words.find((w) => w !== '--force');
    if (!ref) return 'Usage: /resume <number from /sessions, or a session id> [--force].';
    const p = this.current();
    const picked = await this.pickSession(p, ref);
    if ('reply' in picked) return picked.reply;
    const { id } = picked;
    const facts = p.node ? await nodeSessionFacts(this.d, p, id) : await this.factsHere(p, id);
    if (typeof facts === 'string') return facts;
    if (!facts.known) return `There is no session ${id} in project ${p.name}. Send /sessions to see them.`;
    const conv = this.d.store.conversation(this.d.conversationId);
    if (conv?.sessionId === id && conv.project === p.name) return `This conversation is already on session ${id}.`;
    const busy = this.busyReply(`/resume ${ref}`);
    if (busy) return busy;
    const open = facts.open;
    if (open && open.pid !== this.d.ownPid() && !force) {
      return (
        `Session ${id} is ${this.openText(open)}. Two programs writing one session corrupt it: close it ` +
        `there first, or send /resume ${ref} --force if that process is not writing any more.`
      );
    }
    // One session, one conversation: another Rudder conversation that holds it (even with its process reaped) keeps it.
    const holders = this.d.store.sessionHolders(id).filter((h) => h.conversationId !== this.d.conversationId);
    const held = this.heldElsewhere(id, ref, holders, force);
    if (held) return held;
    this.d.projects.of(this.d.conversationId); // records the project if this is the first use
    const moved = await moveSession(this.d, holders, id);
    this.d.store.setSessionId(this.d.conversationId, id);
    await this.d.release(`resuming session ${id}`);
    return (
      `This conversation continues session ${id} in ${p.name} from the next ` +
      `message.${open && force ? ` (It is still ${this.openText(open)}.)` : ''}${moved}`
    );
  }

  /** Whether this machine has session `id` in the project, and which process has it open (a string says why not). */
  private async factsHere(p: Project, id: string): Promise<Awaited<ReturnType<typeof knownSession>> | string> {
    try {
      return await knownSession(this.source(p), this.sessionDirs(p), id);
    } catch (err) {
      return `Session ${id} could not be looked up in ${p.name}: ${(err as Error).message}`;
    }
  }

  /** /attach <n>: drive a running TUI's pane from this conversation (attach-commands.ts). */
  attach(args: string): Promise<string> {
    const p = this.current();
    return attach(this.d, p, this.sessionDirs(p), args);
  }

  /** /detach: let go of the pane this conversation drives. */
  detach(): Promise<string> {
    return detach(this.d, this.current());
  }

  /** The session /resume names: a number from the last /sessions list (or a fresh one), or a session id. */
  private async pickSession(p: Project, ref: string): Promise<{ id: string } | { reply: string }> {
    if (SESSION_ID.test(ref)) return { id: ref.toLowerCase() };
    if (!/^\d{1,3}$/.test(ref))
      return { reply: `"${clip(ref, 40)}" is neither a number from /sessions nor a session id.` };
    const shown = this.d.projects.listings.get(this.d.conversationId);
    const listed = shown ? undefined : await this.listOf(p);
    if (typeof listed === 'string') return { reply: listed };
    const id = (shown ?? listed?.sessions.map((s) => s.id) ?? [])[Number(ref) - 1];
    return id ? { id } : { reply: `There is no session ${ref} in the list. Send /sessions to see them.` };
  }

  /** Why a session another conversation holds does not move here: its turn runs, or --force was not given. */
  private heldElsewhere(id: string, ref: string, holders: SessionHolder[], force: boolean): string | undefined {
    const names = (hs: SessionHolder[]) => hs.map((h) => nameOf(this.d.store, h.conversationId)).join(', ');
    const running = holders.filter((h) => this.d.busyOther?.(h.conversationId));
    if (running.length)
      return (
        `Session ${id} is in a running turn of conversation ${names(running)}: it cannot move while that turn ` +
        'works. Try again when it has ended.'
      );
    if (holders.length && !force)
      return (
        `Session ${id} belongs to conversation ${names(holders)}: ` +
        `two conversations on one session write one transcript and mix their histories. Continue it there, or ` +
        `send /resume ${ref} --force to move it here (that conversation then starts a new session).`
      );
    return undefined;
  }

  async worktree(args: string): Promise<string> {
    const words = args.split(/\s+/).filter(Boolean);
    const p = this.current();
    if (!p.worktrees)
      return (
        `Project ${p.name} has no worktrees: its conversations work in ${p.path} itself. Set ` +
        `projects.${p.name}.worktrees to true to give each its own.`
      );
    const known = this.d.projects.worktreeOf(this.d.conversationId, p.name);
    if (words[0] === undefined || words[0] === 'status') {
      if (!known?.worktree)
        return (
          `No worktree yet: the next turn makes one on ` +
          `branch ${known?.branch ?? branchFor(this.d.conversationId)}.`
        );
      return (await this.statusLines()).join('\n');
    }
    if (words[0] !== 'remove') return 'Usage: /worktree (its status), /worktree remove [--force].';
    const force = words.includes('--force');
    if (!known?.worktree) return 'This conversation has no worktree to remove.';
    const busy = this.busyReply(`/worktree remove${force ? ' --force' : ''}`);
    if (busy) return busy;
    let status: WorktreeStatus | undefined;
    try {
      status = await worktreeStatus(p, known.worktree);
    } catch {
      status = undefined; // already gone: removing only forgets it
    }
    if ((status?.changes.length || status?.ignored.length) && !force) {
      const what = [
        status.changes.length ? `uncommitted changes: ${changeList(status.changes)}` : '',
        status.ignored.length ? `ignored files that git does not keep: ${changeList(status.ignored)}` : '',
      ].filter(Boolean);
      const keep = status.ignored.length ? 'Commit or copy out what you need' : 'Commit them';
      return (
        `The worktree ${known.worktree} has ${what.join('; and ')}. ${keep}, or send /worktree remove --force ` +
        'to throw them away.'
      );
    }
    await this.d.release('worktree removed');
    try {
      await removeWorktree(p, known.worktree, force);
    } catch (err) {
      return `The worktree was not removed: ${isRudderError(err) ? err.message : String(err)}`;
    }
    this.d.store.projects.saveWorktree(this.d.conversationId, p.name, null, known.branch);
    return (
      `Removed the worktree ${known.worktree}. The branch ${known.branch} is kept (git branch ` +
      `-D ${known.branch} deletes it); the next turn checks it out in a new worktree.`
    );
  }

  /** For /status: the project, and the worktree's branch, ahead/behind and changed files. */
  async statusLines(): Promise<string[]> {
    const p = this.current();
    const lines = [`Project: ${p.name} (${where(p)})`];
    if (!p.worktrees) return lines;
    const known = this.d.projects.worktreeOf(this.d.conversationId, p.name);
    if (!known?.worktree)
      return [
        ...lines,
        `Worktree: none yet (the next turn makes one on branch ${known?.branch ?? branchFor(this.d.conversationId)})`,
      ];
    try {
      const s = await worktreeStatus(p, known.worktree);
      lines.push(
        `Worktree: ${s.path}`,
        `Branch: ${s.branch}, ${s.ahead} ahead and ${s.behind} behind ${s.base}`,
        s.changes.length ? `Changed files (${s.changes.length}): ${changeList(s.changes)}` : 'Changed files: none',
      );
    } catch (err) {
      lines.push(`Worktree: ${known.worktree} (${isRudderError(err) ? err.message : String(err)})`);
    }
    return lines;
  }
}

function changeList(changes: string[]): string {
  const shown = changes.slice(0, 8).map((c) => c.trim());
  return `${shown.join(', ')}${changes.length > shown.length ? ` and ${changes.length - shown.length} more` : ''}`;
}
