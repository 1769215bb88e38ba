/**
 * Starting the TUI in its own detached tmux session and bringing it to an idle input box: the
 * conversation's working directory, the environment built for the agent (nothing inherited from
 * the tmux server), a wide pane, and the first-run dialogs answered by reading them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import { MARK_VAR, newMark } from '../../common/orphans.js';
import { readMenu } from '../menus/menus.js';
import { TIMING, type TmuxLaunch } from '../tmux-launch.js';
import { tuiArgs } from './args.js';
import { answerDialog, type DialogPolicy } from './dialogs.js';
import { Pane, type PaneLook, sleep } from './pane.js';
import { howItExited, type Tmux } from './tmux.js';

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

/** Where the TUI's stderr goes: beside (not inside) the directory the agent may read. */
export const stderrFileOf = (launch: TmuxLaunch) => `${launch.tmux.messageDir}.stderr`;

/** The last lines the TUI wrote to stderr, for an error an operator can act on ('' when none). */
export function stderrTail(file: string, chars = 600): string {
  let text: string;
  try {
    const size = fs.statSync(file).size;
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(size, 4096));
      fs.readSync(fd, buf, 0, buf.length, size - buf.length);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
  return screenExcerpt(text, 4).slice(-chars);
}

export async function spawnPane(req: SpawnRequest): Promise<{ pane: Pane; pid: number; mark: string }> {
  const { tmux, name, launch } = req;
  // A pane left from an earlier process of this conversation (dead or orphaned): same exact name.
  await tmux.killSession(name);
  fs.mkdirSync(launch.tmux.messageDir, { recursive: true, mode: 0o700 });
  const args = tuiArgs(
    { ...launch, model: req.model },
    { resume: req.resume, newSessionId: req.newSessionId, addDirs: [launch.tmux.messageDir] },
  );
  // The program runs inside tmux: its terminal is tmux's, whatever the gateway's own TERM was.
  const mark = newMark(launch.markPrefix);
  const env = { ...launch.env, TERM: 'tmux-256color', [MARK_VAR]: mark };
  await tmux.newSession({
    name,
    cwd: launch.cwd,
    width: launch.tmux.width,
    height: launch.tmux.height,
    env,
    argv: [launch.bin, ...args],
    stderrFile: stderrFileOf(launch),
  });
  const info = await tmux.paneInfo(name);
  return { pane: new Pane(tmux, name), pid: info.pid, mark };
}

/**
 * What is wrong with the agent's ~/.claude.json for a first start, if anything (offline, onboarding exits with status
 * 1).
 */
export function onboardingProblem(env: Record<string, string | undefined>): string | undefined {
  const file = env.CLAUDE_CONFIG_DIR
    ? path.join(env.CLAUDE_CONFIG_DIR, '.claude.json')
    : path.join(env.HOME ?? '', '.claude.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return (
      `${file} is missing: run \`claude\` once as the agent's user, or write {"hasCompletedOnboarding": ` +
      `true} there`
    );
  }
  try {
    if ((JSON.parse(text) as { hasCompletedOnboarding?: unknown }).hasCompletedOnboarding === true) return undefined;
  } catch {
    return `${file} is not valid JSON`;
  }
  return `${file} lacks "hasCompletedOnboarding": true`;
}

export interface BootDiagnosis {
  /** The session being resumed holds no conversation (checked again after the exit). */
  nothingToResume?: () => boolean;
  env: Record<string, string | undefined>;
  /** The TUI's stderr file. */
  stderrFile?: string;
}

function deadDuringBoot(
  look: PaneLook,
  resuming: boolean,
  context: Record<string, unknown>,
  diag: BootDiagnosis | undefined,
): RudderError {
  const screen = screenExcerpt(look.text);
  const how = howItExited(look.info);
  // The CLI prints "No conversation found" and then overwrites it with its exit message: the transcript decides too.
  if (resuming && (/No conversation found/i.test(look.text) || diag?.nothingToResume?.())) {
    return new RudderError(
      'AGENT_SESSION_NOT_FOUND',
      `--resume exited (${how}): the session holds no conversation to resume.`,
      context,
    );
  }
  const stderr = diag?.stderrFile ? stderrTail(diag.stderrFile) : '';
  const onboarding = diag ? onboardingProblem(diag.env) : undefined;
  const cause = [
    stderr && ` It printed: ${stderr}.`,
    onboarding && ` ${onboarding}.`,
    !stderr && !onboarding && resuming && ' It exited while resuming the saved session.',
  ]
    .filter(Boolean)
    .join('');
  return new RudderError(
    'AGENT_SPAWN_FAILED',
    `The TUI exited while starting (${how}).${cause} Last screen: ${screen || '(blank)'}. Run \`rudder doctor\`.`,
    context,
  );
}

/** tmux can mark a pane dead a moment before it has reaped the exit status: wait a little for it. */
async function withExitStatus(pane: Pane, look: PaneLook): Promise<PaneLook> {
  let info = look.info;
  for (let i = 0; i < 5 && info.deadStatus === undefined && info.deadSignal === undefined; i++)
    info = await sleep(100).then(() => pane.tmux.paneInfo(pane.name));
  return { ...look, info };
}

/**
 * Waits for an idle input box, answering the startup dialogs the policy allows. An unknown menu or
 * screen is never typed into: past the deadline the error names what the pane shows.
 */
export async function bootPane(
  pane: Pane,
  policy: DialogPolicy,
  log: Logger,
  opts: { resuming: boolean; timeoutMs?: number; context: Record<string, unknown>; diagnosis?: BootDiagnosis },
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? TIMING.bootTimeoutMs);
  let readySince: number | undefined;
  let last: PaneLook | undefined;
  let refusals = 0;
  while (Date.now() < deadline) {
    const look = (last = await pane.look());
    if (look.info.dead)
      throw deadDuringBoot(await withExitStatus(pane, look), opts.resuming, opts.context, opts.diagnosis);
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
      if (answer && 'refused' in answer && refusals >= 3)
        throw new RudderError(
          'AGENT_NOT_READY',
          `${answer.refused} Answer it in the terminal (tmux attach) or fix the configuration.`,
          opts.context,
        );
      if (answer && 'outcome' in answer)
        log.info({ dialog: answer.kind, outcome: answer.outcome }, 'startup dialog answered by its text');
    }
    await sleep(150);
  }
  const what =
    last && readMenu(last.text)
      ? 'a menu Rudder does not answer by itself'
      : `no input box (${last?.verdict ?? 'no capture'})`;
  throw new RudderError(
    'AGENT_NOT_READY',
    `The terminal shows ${what} after ${Math.round((opts.timeoutMs ?? TIMING.bootTimeoutMs) / 1000)} s. Last ` +
      `screen: ${screenExcerpt(last?.text ?? '')}`,
    opts.context,
  );
}
