/**
 * Shared steps and checks for the capture scenarios: booting to an idle footer, and the checks
 * that back a verdict up right after a capture.
 */
import { sleep } from './tui-rig.js';
import type { ShotContext } from './tui-shot.js';

/** Idle footers by permission mode, as 2.1.332 draws them; only used to know the boot finished. */
export const FOOTER = {
  manual: 'manual mode on',
  acceptEdits: 'accept edits on',
  plan: 'plan mode on',
  auto: 'auto mode on',
  bypassPermissions: 'bypass permissions on',
} as const;

export const BOOT_SETTLE_MS = 1500;

export async function bootIdle(s: ShotContext, footer: string): Promise<void> {
  await s.waitFor(footer);
  await s.settle(BOOT_SETTLE_MS);
}

/** A turn is still in flight at the capture if the mock has not received its follow-up request. */
export function stillRunning(s: ShotContext, afterSeq: number, what: string) {
  return async () => {
    const later = s.rig.mock.mainRequests().find((r) => r.seq > afterSeq);
    if (later) throw new Error(`${s.rig.name}: ${what} had already finished at the capture`);
    return `no follow-up request had reached the mock API at the capture: ${what} was still in flight`;
  };
}

export function stillStreaming(s: ShotContext, startedAt: number, totalMs: number) {
  return async () => {
    const elapsed = Date.now() - startedAt;
    if (elapsed >= totalMs) throw new Error(`${s.rig.name}: the reply had finished streaming at the capture`);
    return `captured ${elapsed} ms into a reply the mock streams over ${totalMs} ms`;
  };
}

export const paneDead = (s: ShotContext) => async () => {
  const info = await s.rig.info();
  if (!info.dead) throw new Error(`${s.rig.name}: pane not dead`);
  return `tmux reported #{pane_dead}=1 (status ${info.deadStatus ?? '-'}) at the capture`;
};

/** Backs a `menu` verdict on a completion list: Enter right after the capture sends nothing. */
export const enterDoesNotSend = (s: ShotContext) => async () => {
  const before = s.rig.mock.mainRequests().length;
  await s.rig.keys('Enter');
  await sleep(3000);
  if (s.rig.mock.mainRequests().length > before) throw new Error(`${s.rig.name}: Enter sent a message`);
  s.note('(Enter pressed after the capture sent no message to the mock API within 3 s)');
  return 'Enter pressed right after the capture sent no message to the mock API within 3 s';
};

/** Backs a `ready` verdict on a box with a list drawn above it: Enter sends the typed text unchanged. */
export const enterSendsAsTyped = (s: ShotContext, typed: string) => async () => {
  await s.rig.keys('Enter');
  const req = await s.rig.mock.waitFor((r) => !r.side && r.lastUserText.trimEnd().endsWith(typed), 10_000);
  s.note(`(Enter pressed after the capture sent ${JSON.stringify(typed)} to the mock API)`);
  return (
    `Enter pressed right after the capture ` +
    `sent ${JSON.stringify(req.lastUserText.trimEnd().slice(-typed.length))} unchanged to the mock API`
  );
};

/** Backs a `not-ready` verdict on the box in shell mode: a probe typed + Enter runs as a shell command. */
export const enterRunsAsShellCommand = (s: ShotContext) => async () => {
  const tag = `shellprobe${Date.now().toString(36)}`;
  await s.rig.type(tag);
  await sleep(500);
  await s.rig.keys('Enter');
  await s.rig.waitFor((t) => t.includes(`${tag}: command not found`), 'the probe run as a shell command', 15_000);
  s.note(
    `(probe "${tag}" + Enter typed after the capture ran as a shell command: the pane showed "${tag}: ` +
      `command not found")`,
  );
  return 'a probe typed + Enter right after the capture ran as a shell command ("command not found"), not as a message';
};

/**
 * Backs a `ready` verdict on the EMPTY box in shell mode, as Rudder types into it: Backspace first
 * (it leaves shell mode and loses nothing), then a probe typed + Enter reaches the mock as a message.
 */
export const leavesShellModeThenProbeArrives = (s: ShotContext) => async () => {
  await s.rig.keys('BSpace');
  await sleep(500);
  const got = await s.probeArrives();
  await s.rig.waitFor((t) => /ok tag:probe\w+/.test(t), 'the probe answered', 30_000);
  await sleep(1000);
  s.note('(Backspace, as Rudder presses it in an empty shell-mode box, went back to the input box first)');
  return `Backspace (Rudder's way out of an empty shell-mode box), then ${got}`;
};

/** Shell mode and out again: "!" into the empty box, a shot, Backspace and the probe; "!" and Backspace, a shot. */
export async function shellModeShots(s: ShotContext): Promise<void> {
  await s.keys('!');
  await s.settle(500);
  await s.shot(
    'shell-mode',
    'typed-bang-into-empty-box',
    'ready',
    '"!" typed into the empty box switches it to shell mode; the box is idle, and Backspace leaves the mode',
    leavesShellModeThenProbeArrives(s),
  );
  await s.settle(2000);
  await s.keys('!');
  await s.settle(500);
  await s.keys('BSpace');
  await s.settle(500);
  await s.shot(
    'shell-mode-left',
    'backspace-in-empty-shell-mode',
    'ready',
    'Backspace in the empty shell-mode box goes back to the input box',
    s.probeArrives,
  );
}

/**
 * Claude started from bash in the pane (a viaShell rig), one turn, then Ctrl-C twice: claude exits
 * and what it drew stays above the shell prompt (2.1.112 draws on the main screen, so its idle box
 * is still there). The keys go to bash now: never ready.
 */
export async function shellPromptAfterExitShot(s: ShotContext, boot: (s: ShotContext) => Promise<void>) {
  await s.startFromShell();
  await boot(s);
  await s.send('hello tag:before-exit');
  await s.waitFor('ok tag:before-exit');
  await s.settle(1000);
  await s.keys('C-c');
  await s.settle(300);
  await s.keys('C-c');
  await s.waitFor('Resume this session with');
  await s.settle(1500);
  await s.shot(
    'shell-prompt-after-exit',
    'ctrl-c-twice-after-a-turn',
    'not-ready',
    'claude, started from bash, exited on Ctrl-C twice: the shell prompt under its last frame takes the keys',
    enterRunsAsShellCommand(s),
  );
}

/** `claude --resume` typed into bash after a session: the session picker (Enter resumes the highlighted one). */
export async function resumePickerShot(s: ShotContext, boot: (s: ShotContext) => Promise<void>) {
  await s.startFromShell();
  await boot(s);
  await s.send('hello tag:to-resume');
  await s.waitFor('ok tag:to-resume');
  await s.settle(1000);
  await s.keys('C-c');
  await s.settle(300);
  await s.keys('C-c');
  await s.waitFor('Resume this session with');
  await s.settle(500);
  await s.startFromShell(' --resume');
  await s.waitFor('to show all projects', 45_000);
  await s.settle(1500);
  await s.shot(
    'resume-picker',
    'claude-resume-after-a-session',
    'menu',
    '`claude --resume` shows the session picker: Enter resumes the highlighted session',
    enterDoesNotSend(s),
  );
}
