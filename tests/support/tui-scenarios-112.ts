/**
 * The states captured from the older, pure-JS TUI (2.1.112), each produced by known steps against
 * the mock API. It draws differently from 2.1.332: the main screen with a welcome box, lists (slash
 * commands, @-mentions) BELOW the input box with the highlight in colour only, numbered startup
 * dialogs, a `? for shortcuts` footer in its default mode, its own rate-limit menu.
 */

import { READY_SEED, sleep } from './tui-rig.js';
import {
  BOOT_SETTLE_MS,
  enterDoesNotSend,
  paneDead,
  resumePickerShot,
  shellModeShots,
  shellPromptAfterExitShot,
  stillRunning,
  stillStreaming,
} from './tui-scenario-helpers.js';
import { askQuestionScript, planExitScript } from './tui-scripts.js';
import type { Scenario, ShotContext } from './tui-shot.js';

/** Idle footers by permission mode, as 2.1.112 draws them; only used to know the boot finished. */
const FOOTER = {
  default: '? for shortcuts',
  acceptEdits: 'accept edits on',
  plan: 'plan mode on',
  bypassPermissions: 'bypass permissions on',
} as const;

/** 2.1.112 takes several seconds to load (pure JS). */
const BOOT_WAIT_MS = 45_000;

async function boot(s: ShotContext, footer: string = FOOTER.default): Promise<void> {
  await s.waitFor(footer, BOOT_WAIT_MS);
  await s.settle(BOOT_SETTLE_MS);
}

async function afterOneTurn(s: ShotContext, tag: string): Promise<void> {
  await boot(s);
  await s.send(`hello tag:${tag}`);
  await s.waitFor(`ok tag:${tag}`);
  await s.settle(1000);
}

/**
 * Backs a `menu` verdict on the mention list: Enter right after the capture sends nothing and inserts the highlighted
 * entry.
 */
const enterInsertsMention = (s: ShotContext) => async () => {
  const before = s.rig.mock.mainRequests().length;
  await s.rig.keys('Enter');
  await sleep(3000);
  if (s.rig.mock.mainRequests().length > before) throw new Error(`${s.rig.name}: Enter sent a message`);
  if (!(await s.rig.text()).includes('@"'))
    throw new Error(`${s.rig.name}: Enter did not insert the highlighted mention`);
  s.note(
    '(Enter pressed after the capture sent no message to the mock API within 3 s; the box then held the ' +
      'highlighted @"…" entry)',
  );
  return (
    'Enter pressed right after the capture sent no message within 3 s and inserted the highlighted ' +
    'mention into the box'
  );
};

const modeScenario = (mode: keyof typeof FOOTER, args: string[]): Scenario => ({
  id: `idle-${mode}`,
  setup: { args },
  async run(s) {
    await boot(s, FOOTER[mode]);
    const how = `started-${args.join('-').replace(/^-+/, '').replace(/-+/g, '-') || 'default'}`;
    await s.shot(
      `idle-${mode}`,
      how,
      'ready',
      `fresh start in ${mode} mode (the welcome box above the input box), no input ` +
        `sent, ${BOOT_SETTLE_MS / 1000} s after the footer appeared`,
      s.probeArrives,
    );
  },
});

const DEFAULT_MODE = { args: ['--permission-mode', 'default'] };

export const SCENARIOS_112: Scenario[] = [
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
      await s.rig.waitFor((t) => t.trim() !== '', 'the first non-blank frame', BOOT_WAIT_MS);
      s.note('poll capture-pane every 100 ms until the pane is not blank');
      await s.shot(
        'boot-first-frame',
        'first-nonblank-frame',
        'ready',
        'the first frame drawn (welcome box and input box); typing right after it was submitted',
        s.probeArrives,
      );
    },
  },
  modeScenario('default', []),
  modeScenario('acceptEdits', ['--permission-mode', 'acceptEdits']),
  modeScenario('plan', ['--permission-mode', 'plan']),
  modeScenario('bypassPermissions', ['--dangerously-skip-permissions']),
  {
    id: 'auto-mode-consent',
    setup: { args: ['--permission-mode', 'auto'] },
    async run(s) {
      await s.waitFor('enable auto mode', BOOT_WAIT_MS);
      await s.settle(500);
      await s.shot(
        'auto-mode-consent',
        'started-permission-mode-auto',
        'menu',
        '--permission-mode auto on a HOME that never enabled it asks for consent first (numbered)',
      );
    },
  },
  {
    id: 'trust-dialog',
    setup: { seed: { ...READY_SEED, trusted: false } },
    async run(s) {
      await s.waitFor('trust', BOOT_WAIT_MS);
      await s.rig.waitFor((t) => /Yes, (I trust|proceed)/.test(t), 'the trust options', BOOT_WAIT_MS);
      await s.settle(500);
      await s.shot(
        'trust-dialog',
        'fresh-home-untrusted-cwd',
        'menu',
        'the cwd is not trusted in the seeded ~/.claude.json, so the trust dialog is up',
      );
      await s.keys('Down');
      await s.settle(500);
      await s.shot('trust-dialog', 'highlight-moved-down', 'menu', 'the trust dialog after one Down key');
    },
  },
  {
    id: 'api-key-dialog',
    setup: { seed: { ...READY_SEED, apiKeyApproved: false } },
    async run(s) {
      await s.waitFor('Do you want to use this API key?', BOOT_WAIT_MS);
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
      await s.waitFor('Yes, I accept', BOOT_WAIT_MS);
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
      await boot(s);
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
    id: 'shortcuts-panel',
    setup: {},
    async run(s) {
      await boot(s);
      await s.keys('?');
      await s.waitFor('for bash mode');
      await s.settle(500);
      await s.shot(
        'shortcuts-panel',
        'typed-question-mark-into-empty-box',
        'ready',
        '"?" in the empty box opens the shortcut panel under the box; typing goes into the box',
        s.probeArrives,
      );
    },
  },
  {
    id: 'streaming',
    setup: {},
    async run(s) {
      await boot(s);
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
        'a reply streaming over 8 s, captured 2 s in (2.1.112 draws only the spinner until the block completes)',
        stillStreaming(s, req.at, 8000),
      );
      await s.settle(1000);
      await s.type('more text while it streams');
      await s.settle(500);
      await s.shot(
        'streaming-typed',
        'text-typed-3-5s-into-slow-reply',
        'busy',
        'text typed (not sent) into the box while the 8 s reply streams: the footer hint is gone',
        stillStreaming(s, req.at, 8000),
      );
    },
  },
  {
    id: 'tool-running',
    setup: { args: ['--dangerously-skip-permissions'] },
    async run(s) {
      await boot(s, FOOTER.bypassPermissions);
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
        'Enter pressed during Bash `sleep 8`: the message is queued (drawn as `❯ text` above the box, the ' +
          'box shows a placeholder)',
        stillRunning(s, req.seq, 'sleep 8'),
      );
    },
  },
  {
    id: 'finished-turn',
    setup: {},
    async run(s) {
      await afterOneTurn(s, 'finished');
      await s.settle(500);
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
    setup: DEFAULT_MODE,
    async run(s) {
      await boot(s);
      await s.send('make a file [[bash:touch probe.txt]]');
      await s.waitFor('Do you want to proceed?');
      await s.settle(500);
      await s.shot(
        'permission-prompt',
        'default-mode-bash-touch',
        'menu',
        'default mode: the mock called Bash `touch probe.txt`, which needs approval',
      );
    },
  },
  {
    id: 'plan-exit',
    setup: { args: ['--permission-mode', 'plan'], makeScript: planExitScript },
    async run(s) {
      await boot(s, FOOTER.plan);
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
      await boot(s, FOOTER.bypassPermissions);
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
      await boot(s);
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
      await boot(s);
      await s.type('/');
      await s.waitFor('/add-dir');
      await s.settle(500);
      await s.shot(
        'slash-menu',
        'typed-slash-into-idle-box',
        'menu',
        '"/" typed into the idle box opens the command list BELOW the box (highlight in colour only); Enter ' +
          'runs the highlighted command',
        enterDoesNotSend(s),
      );
    },
  },
  {
    id: 'slash-menu-filtered',
    setup: {},
    async run(s) {
      await boot(s);
      await s.type('/mo');
      await s.waitFor('/model ');
      await s.settle(500);
      await s.shot(
        'slash-menu',
        'typed-slash-mo-into-idle-box',
        'menu',
        '"/mo" typed into the idle box narrows the command list below the box; Enter runs the highlighted /model',
        enterDoesNotSend(s),
      );
    },
  },
  {
    id: 'mention-list',
    setup: {},
    async run(s) {
      await boot(s);
      await s.type('look at @');
      await s.waitFor('(agent)');
      await s.settle(500);
      await s.shot(
        'mention-list',
        'typed-at-sign-into-idle-box',
        'menu',
        '"@" typed into the idle box opens the mention list below the box; Enter inserts the highlighted ' +
          'entry instead of sending',
        enterInsertsMention(s),
      );
    },
  },
  {
    id: 'rewind-menu',
    setup: {},
    async run(s) {
      await afterOneTurn(s, 'rewind');
      await s.keys('Escape');
      await s.settle(150);
      await s.keys('Escape');
      await s.waitFor('Rewind');
      await s.settle(500);
      await s.shot(
        'rewind-menu',
        'esc-esc-after-a-turn',
        'menu',
        'Esc Esc after a turn opens the rewind picker; Enter restores to the highlighted point',
      );
    },
  },
  {
    id: 'config-panel',
    setup: {},
    async run(s) {
      await boot(s);
      await s.send('/config');
      await s.waitFor('Search settings');
      await s.settle(500);
      await s.shot(
        'config-panel',
        'slash-config-entered',
        'menu',
        '/config + Enter opens the settings panel; Enter/Space change the highlighted setting',
      );
    },
  },
  {
    id: 'history-search',
    setup: {},
    async run(s) {
      await afterOneTurn(s, 'history');
      await s.keys('C-r');
      await s.waitFor('search prompts:');
      await s.settle(500);
      await s.shot(
        'history-search',
        'ctrl-r-after-a-turn',
        'menu',
        'ctrl+r turns the box into a search over earlier prompts; typed text searches, Enter takes the match',
        s.probeIsLost,
      );
    },
  },
  {
    id: 'api-error-500',
    setup: {},
    async run(s) {
      await boot(s);
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
    setup: {},
    async run(s) {
      await boot(s);
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
    id: 'rate-limit-menu',
    setup: { auth: 'oauth' },
    async run(s) {
      await boot(s);
      await s.send('limit please [[429:subscription]]');
      await s.waitFor('What do you want to do?');
      await s.settle(800);
      await s.shot(
        'rate-limit-menu',
        'mock-429-subscription',
        'menu',
        'logged in with a subscription token, the mock answered 429 with the unified rate-limit headers: ' +
          '2.1.112 opens /rate-limit-options',
      );
    },
  },
  {
    id: 'ctrl-c-once',
    setup: {},
    async run(s) {
      await boot(s);
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
    setup: {},
    async run(s) {
      await boot(s);
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
      await boot(s);
      await s.send('/exit');
      await s.settle(3000);
      await s.shot('exited', 'slash-exit', 'not-ready', 'claude exited after /exit', paneDead(s));
    },
  },
  {
    id: 'transcript-view',
    setup: {},
    async run(s) {
      await afterOneTurn(s, 'transcript');
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
    id: 'side-question',
    setup: {},
    async run(s) {
      await afterOneTurn(s, 'btw');
      await s.send('/btw what is up');
      await s.waitFor('Esc to dismiss');
      await s.settle(500);
      await s.shot(
        'side-question',
        'slash-btw-answered',
        'not-ready',
        '/btw shows its answer in a panel that replaces the input box',
      );
    },
  },
  {
    id: 'shell-prompt-after-exit',
    setup: { ...DEFAULT_MODE, viaShell: true },
    run: (s) => shellPromptAfterExitShot(s, (c) => boot(c)),
  },
  {
    id: 'resume-picker',
    setup: { ...DEFAULT_MODE, viaShell: true },
    run: (s) => resumePickerShot(s, (c) => boot(c)),
  },
];
