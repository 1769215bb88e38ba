/**
 * `rudder attach`: a conversation's session opened in a terminal on the machine its agent runs on: this one
 * (projects/terminal.ts does it here) or the node of its project (the node does the same there, asked over the
 * wire: projects/node-panes.ts). What the gateway decides is when: a headless session moves to a pane, and a
 * Codex thread goes to Codex's TUI, only at a turn boundary; the lane lets its process go and holds what arrives
 * in line (Lane.moveWhenIdle) until the move is done, or (Codex) until the person hands the thread back.
 */

import { WEB } from '../../channels/web/name.js';
import { RudderError } from '../../errors.js';
import { nodeOpenTerminal, nodeTerminalWay } from '../../projects/node-panes.js';
import type { Project } from '../../projects/projects.js';
import { type TerminalDeps as HereDeps, localWay, type Opened, openHere, planWay } from '../../projects/terminal.js';
import type { TerminalCodex, TerminalPane } from '../../projects/terminal-types.js';
import { conversationIdOf } from '../intake/intake.js';
import type { Lane } from '../lane/lane.js';
import type { TerminalAnswer, TerminalPlan, TerminalWay } from './types.js';

export interface TerminalDeps extends HereDeps {
  conversations: { lane(conversationId: string): Lane };
}

/** How long one request waits for a running turn to end before it answers "waiting" (the CLI asks again). */
const TURN_WAIT_MS = 20_000;
/** How long a Codex thread given to a terminal holds the conversation's messages, unless handed back sooner. */
const CODEX_HOLD_MS = 8 * 3600_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The machine the conversation's agent runs on: which way it opens there, and opening it. */
interface Machine {
  way(): Promise<TerminalWay>;
  open(): Promise<TerminalPane | TerminalCodex>;
}

function machineOf(d: TerminalDeps, id: string): Machine {
  const project: Project = d.projects.peek(id);
  if (project.node) {
    const deps = d.projectDeps(id);
    return { way: () => nodeTerminalWay(deps, project), open: () => nodeOpenTerminal(deps, project) };
  }
  return {
    way: async () => planWay(localWay(d, id)),
    open: () => openHere(d, id).then((o: Opened) => told(d, id, o)),
  };
}

function told(d: TerminalDeps, id: string, o: Opened): TerminalPane | TerminalCodex {
  if (o.told) d.projectDeps(id).tell?.(id, o.told);
  return o.answer;
}

/** What `rudder attach <key>` will do, asked before it does it (the CLI says a turn runs, and offers Stop). */
export async function terminalPlan(d: TerminalDeps, key: string): Promise<TerminalPlan> {
  const id = conversationIdOf(WEB, key);
  const node = d.projects.peek(id).node;
  const way = await machineOf(d, id).way();
  return { way, busy: d.conversations.lane(id).busy(), command: `rudder attach ${key}`, ...(node ? { node } : {}) };
}

/** Opens the conversation in a terminal: where to attach, the Codex line, or "waiting" while a turn runs. */
export async function openInTerminal(d: TerminalDeps, key: string): Promise<TerminalAnswer> {
  const id = conversationIdOf(WEB, key);
  const machine = machineOf(d, id);
  const until = Date.now() + TURN_WAIT_MS;
  for (;;) {
    const way = await machine.way();
    if (way === 'pane') return machine.open();
    const lane = d.conversations.lane(id);
    let opened: TerminalPane | TerminalCodex | undefined;
    const open = async () => {
      opened = await machine.open();
    };
    if (way === 'codex') {
      const given = lane.handToTerminal('the thread is given to Codex in a terminal', Date.now() + CODEX_HOLD_MS, open);
      if (given !== false) return given.then(() => opened!);
    } else {
      const move = lane.moveWhenIdle('the session moves to a terminal', open);
      if (move !== false) {
        await move.catch((err: Error) => {
          throw new RudderError('TERMINAL_MOVE_FAILED', `Why: ${err.message}`, { conversationId: id }, err);
        });
        return opened!;
      }
    }
    if (Date.now() >= until) return { way: 'waiting', reason: 'a turn is running: the move waits for it to end' };
    await sleep(250);
  }
}

/** The terminal program is done with the session (Codex closed): what waited runs now; how many (-1: none held). */
export function backFromTerminal(d: TerminalDeps, key: string): number {
  return d.conversations.lane(conversationIdOf(WEB, key)).backFromTerminal();
}
