/**
 * Starting the TUI in its own detached tmux session and bringing it to an idle input box: the
 * conversation's working directory, the environment built for the agent (nothing inherited from
 * the tmux server), a wide pane, and the first-run dialogs answered by reading them.
 */
import fs from 'node:fs';
import { RudderError } from '../../errors.js';
import { MARK_VAR, newMark } from '../common/orphans.js';
import type { Logger } from '../../ops/logger.js';
import { tuiArgs } from './args.js';
import { answerDialog, type DialogPolicy } from './dialogs.js';
import { readMenu } from './menus.js';
import { Pane, sleep, type PaneLook } from './pane.js';
import { TIMING, type TmuxLaunch } from './tmux-launch.js';
import type { Tmux } from './tmux.js';

export interface SpawnRequest {
  tmux: Tmux;
  name: string;
  launch: TmuxLaunch;
  /** The model now in force (a /model since the launch wins). */
  model: string | undefined;
  resume: string | undefined;
  newSessionId: string | undefined;
}

/** The last non-blank lines of a screen, for an error an operator can act on. */
export function screenExcerpt(text: string, lines = 6): string {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim())
    .slice(-lines)
    .join(' | ')
    .slice(0, 600);
}

export async function spawnPane(req: SpawnRequest): Promise<{ pane: Pane; pid: number; mark: string }> {
  const { tmux, name, launch } = req;
  // A pane left from an earlier process of this conversation (dead or orphaned): same exact name.
  await tmux.killSession(name);
  fs.mkdirSync(launch.tmux.messageDir, { recursive: true, mode: 0o700 });
  const args = tuiArgs({ ...launch, model: req.model }, { resume: req.resume, newSessionId: req.newSessionId, addDirs: [launch.tmux.messageDir] });
  // The program runs inside tmux: its terminal is tmux's, whatever the gateway's own TERM was.
  const mark = newMark(launch.markPrefix);
  const env = { ...launch.env, TERM: 'tmux-256color', [MARK_VAR]: mark };
  await tmux.newSession({ name, cwd: launch.cwd, width: launch.tmux.width, height: launch.tmux.height, env, argv: [launch.bin, ...args] });
  const info = await tmux.paneInfo(name);
  return { pane: new Pane(tmux, name), pid: info.pid, mark };
}

function deadDuringBoot(look: PaneLook, resuming: boolean, context: Record<string, unknown>): RudderError {
  const screen = screenExcerpt(look.text);
  if (resuming && /No conversation found/i.test(look.text)) return new RudderError('AGENT_SESSION_NOT_FOUND', undefined, context);
  const how = look.info.deadSignal ? `signal ${look.info.deadSignal}` : `status ${look.info.deadStatus ?? '?'}`;
  return new RudderError('AGENT_SPAWN_FAILED', `The TUI exited while starting (${how}). Last screen: ${screen}. A fresh HOME needs ~/.claude.json with hasCompletedOnboarding: true; run \`rudder doctor\`.`, context);
}

/**
 * Waits for an idle input box, answering the startup dialogs the policy allows. An unknown menu or
 * screen is never typed into: past the deadline the error names what the pane shows.
 */
export async function bootPane(pane: Pane, policy: DialogPolicy, log: Logger, opts: { resuming: boolean; timeoutMs?: number; context: Record<string, unknown> }): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? TIMING.bootTimeoutMs);
  let readySince: number | undefined;
  let last: PaneLook | undefined;
  let refusals = 0;
  while (Date.now() < deadline) {
    const look = (last = await pane.look());
    if (look.info.dead) throw deadDuringBoot(look, opts.resuming, opts.context);
    if (look.verdict === 'ready') {
      readySince ??= Date.now();
      if (Date.now() - readySince >= TIMING.bootSettleMs) return;
    } else {
      readySince = undefined;
    }
    if (look.verdict === 'menu') {
      const answer = await answerDialog(pane, look.text, policy);
      // Refused three looks in a row (not a half-drawn frame): only the person can answer it.
      refusals = answer && 'refused' in answer ? refusals + 1 : 0;
      if (answer && 'refused' in answer && refusals >= 3) throw new RudderError('AGENT_NOT_READY', `${answer.refused} Answer it in the terminal (tmux attach) or fix the configuration.`, opts.context);
      if (answer && 'outcome' in answer) log.info({ dialog: answer.kind, outcome: answer.outcome }, 'startup dialog answered by its text');
    }
    await sleep(150);
  }
  const what = last && readMenu(last.text) ? 'a menu Rudder does not answer by itself' : `no input box (${last?.verdict ?? 'no capture'})`;
  throw new RudderError('AGENT_NOT_READY', `The terminal shows ${what} after ${Math.round((opts.timeoutMs ?? TIMING.bootTimeoutMs) / 1000)} s. Last screen: ${screenExcerpt(last?.text ?? '')}`, opts.context);
}
