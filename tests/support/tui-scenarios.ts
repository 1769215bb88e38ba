/**
 * The states captured from the real TUI, each produced by known steps against the mock API.
 * The verdict of each capture follows from those steps, and where possible is backed by a check
 * (a probe that arrived, a turn still in flight, tmux reporting the pane dead).
 */

import { READY_SEED } from './tui-rig.js';
import {
  BOOT_SETTLE_MS,
  bootIdle,
  enterDoesNotSend,
  FOOTER,
  paneDead,
  resumePickerShot,
  shellModeShots,
  shellPromptAfterExitShot,
  stillRunning,
  stillStreaming,
} from './tui-scenario-helpers.js';
import { PANEL_SCENARIOS } from './tui-scenarios-panels.js';
import { askQuestionScript, planExitScript } from './tui-scripts.js';
import type { Scenario } from './tui-shot.js';

const modeScenario = (mode: keyof typeof FOOTER, args: string[]): Scenario => ({
  id: `idle-${mode}`,
  setup: { args },
  async run(s) {
    await bootIdle(s, FOOTER[mode]);
    await s.shot(
      `idle-${mode}`,
      `started-${args.join('-').replace(/^-+/, '').replace(/-+/g, '-') || 'default'}`,
      'ready',
      `fresh start in ${mode} mode, no input sent, ${BOOT_SETTLE_MS / 1000} s after the footer appeared`,
      s.probeArrives,
    );
  },
});

export const SCENARIOS: Scenario[] = [
  {
    id: 'boot',
    setup: {},
    async run(s) {
      await s.settle(150);
      const blank = await s.shot(
        'boot-blank',
        'captured-150ms-after-start',
        'not-ready',
        'captured 150 ms after tmux started claude, before its first frame',
      );
      if (blank.text.trim() !== '') throw new Error('pane was not blank 150 ms after start');
      await s.rig.waitFor((t) => t.trim() !== '', 'the first non-blank frame', 20_000);
      s.note('poll capture-pane every 100 ms until the pane is not blank');
      await s.shot(
        'boot-first-frame',
        'first-nonblank-frame',
        'ready',
        'the first frame drawn; typing right after it was submitted',
        s.probeArrives,
      );
    },
  },
  modeScenario('manual', ['--permission-mode', 'manual']),
  modeScenario('acceptEdits', ['--permission-mode', 'acceptEdits']),
  modeScenario('plan', ['--permission-mode', 'plan']),
  modeScenario('auto', []),
  modeScenario('bypassPermissions', ['--dangerously-skip-permissions']),
  {
    id: 'trust-dialog',
    setup: { seed: { ...READY_SEED, trusted: false } },
    async run(s) {
      await s.waitFor('Yes, I trust this folder');
      await s.settle(500);
      await s.shot(
        'trust-dialog',
        'fresh-home-untrusted-cwd',
        'menu',
        'the cwd is not trusted in the seeded ~/.claude.json, so the trust dialog is up',
      );
      await s.keys('Down');
      await s.settle(500);
      await s.shot('trust-dialog', 'highlight-moved-to-trust', 'menu', 'the trust dialog after one Down key');
    },
  },
  {
    id: 'api-key-dialog',
    setup: { seed: { ...READY_SEED, apiKeyApproved: false } },
    async run(s) {
      await s.waitFor('Do you want to use this API key?');
      await s.settle(500);
      await s.shot(
        'api-key-dialog',
        'key-not-approved-in-home',
        'menu',
        'ANTHROPIC_API_KEY is not in customApiKeyResponses.approved, so the key dialog is up',
      );
    },
  },
  {
    id: 'bypass-warning',
    setup: { seed: { ...READY_SEED, bypassAccepted: false }, args: ['--dangerously-skip-permissions'] },
    async run(s) {
      await s.waitFor('Yes, I accept');
      await s.settle(500);
      await s.shot(
        'bypass-warning',
        'dangerously-skip-permissions-not-accepted',
        'menu',
        'started with --dangerously-skip-permissions and no skipDangerousModePermissionPrompt',
      );
    },
  },
  {
    id: 'typed',
    setup: {},
    async run(s) {
      await bootIdle(s, FOOTER.auto);
      await s.type('hello there, not sent yet');
      await s.settle(500);
      await s.shot(
        'typed-not-sent',
        'typed-into-idle-box',
        'ready',
        'text typed into the idle box, Enter not pressed',
        s.probeArrives,
      );
      await s.settle(2000);
      await shellModeShots(s);
    },
  },
  {
    id: 'streaming',
    setup: {},
    async run(s) {
      await bootIdle(s, FOOTER.auto);
      await s.send('stream please [[slow:8000]]');
      const req = await s.waitForRequest(
        (r) => !r.side && r.lastUserText.includes('[[slow:8000]]'),
        'the [[slow:8000]] turn',
      );
      await s.settle(2000);
      await s.shot(
        'streaming',
        'slow-8000-reply-2s-in',
        'busy',
        'a reply streaming over 8 s, captured 2 s in',
        stillStreaming(s, req.at, 8000),
      );
      await s.settle(1000);
      await s.type('more text while it streams');
      await s.settle(500);
      await s.shot(
        'streaming-typed',
        'text-typed-3-5s-into-slow-reply',
        'busy',
        'text typed (not sent) into the box while the 8 s reply streams',
        stillStreaming(s, req.at, 8000),
      );
    },
  },
  {
    id: 'tool-running',
    setup: { args: ['--dangerously-skip-permissions'] },
    async run(s) {
      await bootIdle(s, FOOTER.bypassPermissions);
      await s.send('run it [[bash:sleep 8]]');
      const req = await s.waitForRequest(
        (r) => !r.side && r.lastUserText.includes('[[bash:sleep 8]]'),
        'the [[bash:sleep 8]] turn',
      );
      await s.settle(3000);
      await s.shot(
        'tool-running',
        'bash-sleep-8-3s-in',
        'busy',
        'Bash `sleep 8` running, captured 3 s after the tool call',
        stillRunning(s, req.seq, 'sleep 8'),
      );
      await s.type('typed while the tool runs');
      await s.settle(500);
      await s.shot(
        'tool-running-typed',
        'text-typed-during-bash-sleep-8',
        'busy',
        'text typed (not sent) during Bash `sleep 8`',
        stillRunning(s, req.seq, 'sleep 8'),
      );
      await s.keys('Enter');
      await s.settle(700);
      await s.shot(
        'tool-running-queued',
        'enter-pressed-during-bash-sleep-8',
        'busy',
        'Enter pressed during Bash `sleep 8`: the message is queued',
        stillRunning(s, req.seq, 'sleep 8'),
      );
    },
  },
  {
    id: 'finished-turn',
    setup: {},
    async run(s) {
      await bootIdle(s, FOOTER.auto);
      await s.send('hello tag:finished');
      await s.waitForRequest((r) => !r.side && r.lastUserText.includes('tag:finished'), 'the turn');
      await s.waitFor('ok tag:finished');
      await s.settle(1500);
      await s.shot(
        'idle-after-turn',
        'reply-finished-1-5s-ago',
        'ready',
        'a turn answered by the mock, 1.5 s after its reply appeared',
        s.probeArrives,
      );
    },
  },
  {
    id: 'permission-prompt',
    setup: { args: ['--permission-mode', 'manual'] },
    async run(s) {
      await bootIdle(s, FOOTER.manual);
      await s.send('make a file [[bash:touch probe.txt]]');
      await s.waitFor('Do you want to proceed?');
      await s.settle(500);
      await s.shot(
        'permission-prompt',
        'manual-mode-bash-touch',
        'menu',
        'manual mode: the mock called Bash `touch probe.txt`, which needs approval',
      );
    },
  },
  {
    id: 'plan-exit',
    setup: { args: ['--permission-mode', 'plan'], makeScript: planExitScript },
    async run(s) {
      await bootIdle(s, FOOTER.plan);
      await s.send('plan it [[plan-exit]]');
      await s.waitFor('manually approve edits');
      await s.settle(800);
      await s.shot(
        'plan-exit-menu',
        'plan-mode-exitplanmode-call',
        'menu',
        'plan mode: the mock wrote a plan file and called ExitPlanMode',
      );
    },
  },
  {
    id: 'ask-user-question',
    setup: { args: ['--dangerously-skip-permissions'], makeScript: askQuestionScript },
    async run(s) {
      await bootIdle(s, FOOTER.bypassPermissions);
      await s.send('ask me [[ask]]');
      await s.waitFor('Which parts should I change?');
      await s.settle(800);
      await s.shot(
        'ask-user-question',
        'multiselect-question-call',
        'menu',
        'the mock called AskUserQuestion with a multi-select question',
      );
    },
  },
  {
    id: 'model-picker',
    setup: {},
    async run(s) {
      await bootIdle(s, FOOTER.auto);
      await s.send('/model');
      await s.waitFor('Select model');
      await s.settle(500);
      await s.shot('model-picker', 'slash-model-entered', 'menu', '/model + Enter opens the model picker');
    },
  },
  {
    id: 'slash-menu',
    setup: {},
    async run(s) {
      await bootIdle(s, FOOTER.auto);
      await s.type('/');
      await s.waitFor('/add-dir');
      await s.settle(500);
      await s.shot(
        'slash-menu',
        'typed-slash-into-idle-box',
        'menu',
        '"/" typed into the idle box opens the command list; Enter runs the highlighted command',
        enterDoesNotSend(s),
      );
    },
  },
  {
    id: 'api-error-500',
    setup: {},
    async run(s) {
      await bootIdle(s, FOOTER.auto);
      await s.send('fail please [[500]]');
      await s.waitFor('API Error');
      await s.settle(1000);
      await s.shot(
        'api-error',
        'mock-500',
        'ready',
        'the mock answered 500 (no retries); the turn ended with an API error',
        s.probeArrives,
      );
    },
  },
  {
    id: 'api-error-429',
    setup: { args: ['--permission-mode', 'manual'] },
    async run(s) {
      await bootIdle(s, FOOTER.manual);
      await s.send('limit please [[429:apikey]]');
      await s.waitFor('API Error');
      await s.settle(1000);
      await s.shot(
        'api-error',
        'mock-429-apikey',
        'ready',
        'the mock answered 429 (API-key style, no retries); the turn ended with an API error',
        s.probeArrives,
      );
    },
  },
  {
    id: 'ctrl-c-once',
    setup: { args: ['--permission-mode', 'manual'] },
    async run(s) {
      await bootIdle(s, FOOTER.manual);
      await s.keys('C-c');
      await s.settle(300);
      await s.shot(
        'ctrl-c-once',
        'idle-box-one-ctrl-c',
        'ready',
        'one Ctrl-C at the idle box: the footer asks for a second one',
        s.probeArrives,
      );
    },
  },
  {
    id: 'exited-sigkill',
    setup: { args: ['--permission-mode', 'manual'] },
    async run(s) {
      await bootIdle(s, FOOTER.manual);
      const { pid } = await s.rig.info();
      process.kill(pid, 'SIGKILL');
      s.note('kill -KILL #{pane_pid} (the claude process)');
      await s.settle(800);
      await s.shot(
        'exited',
        'sigkill-while-idle',
        'not-ready',
        'claude was killed; nothing reads the pane',
        paneDead(s),
      );
    },
  },
  {
    id: 'exited-slash-exit',
    setup: {},
    async run(s) {
      await bootIdle(s, FOOTER.auto);
      await s.send('/exit');
      await s.settle(2000);
      await s.shot('exited', 'slash-exit', 'not-ready', 'claude exited after /exit', paneDead(s));
    },
  },
  {
    id: 'transcript-view',
    setup: { args: ['--permission-mode', 'manual'] },
    async run(s) {
      await bootIdle(s, FOOTER.manual);
      await s.send('hello tag:transcript');
      await s.waitFor('ok tag:transcript');
      await s.settle(1000);
      await s.keys('C-o');
      await s.settle(800);
      await s.shot(
        'transcript-view',
        'ctrl-o-after-a-turn',
        'not-ready',
        'ctrl+o swaps the input box for the transcript view',
        s.probeIsLost,
      );
    },
  },
  {
    id: 'shell-prompt-after-exit',
    setup: { args: ['--permission-mode', 'manual'], viaShell: true },
    run: (s) => shellPromptAfterExitShot(s, (c) => bootIdle(c, FOOTER.manual)),
  },
  {
    id: 'resume-picker',
    setup: { args: ['--permission-mode', 'manual'], viaShell: true },
    run: (s) => resumePickerShot(s, (c) => bootIdle(c, FOOTER.manual)),
  },
  ...PANEL_SCENARIOS,
];
