import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasPlaceholderInput } from '../../../../../src/agents/tmux/screen/pane-input.js';
import {
  canTypeNow,
  classifyPane,
  classifyPaneDetailed,
  type PaneVerdict,
} from '../../../../../src/agents/tmux/screen/pane-state.js';
import { REPO_ROOT } from '../../../../support/tui-rig.js';

const PANES = path.join(REPO_ROOT, 'tests/fixtures/panes');
const PEERS = path.join(REPO_ROOT, 'tests/fixtures/peer-panes');
const VERDICTS: PaneVerdict[] = ['ready', 'busy', 'menu', 'not-ready'];
const read = (file: string) => fs.readFileSync(file, 'utf8');
const readJson = (file: string) => JSON.parse(read(file));

interface Capture {
  file: string;
  ansiFile: string;
  state: string;
  expected: PaneVerdict;
  paneDead: boolean;
  /** `#{pane_current_command}` at the capture, where it was recorded. */
  paneCommand?: string;
  width: number;
  height: number;
  cliVersion: string;
  cliBuild: string;
  steps: string[];
}

const captures: Capture[] = readJson(path.join(PANES, 'manifest.json')).captures;
const version = (c: Capture) => c.cliVersion.split(' ')[0]!;

/** The states each TUI line must have captured, at 80x24 and at 200x50. */
const REQUIRED: Record<string, string[]> = {
  '2.1.332': [
    'boot-blank',
    'boot-first-frame',
    'trust-dialog',
    'bypass-warning',
    'idle-manual',
    'idle-acceptEdits',
    'idle-plan',
    'idle-auto',
    'idle-bypassPermissions',
    'typed-not-sent',
    'shell-mode',
    'streaming',
    'tool-running',
    'permission-prompt',
    'plan-exit-menu',
    'model-picker',
    'slash-menu',
    'rewind-menu',
    'config-panel',
    'api-error',
    'exited',
    'shell-prompt-after-exit',
    'resume-picker',
  ],
  // 2.1.112 draws on the main screen (the welcome box is in idle-default), lists below the box, its own rate-limit
  // menu.
  '2.1.112': [
    'boot-blank',
    'boot-first-frame',
    'trust-dialog',
    'bypass-warning',
    'api-key-dialog',
    'auto-mode-consent',
    'idle-default',
    'idle-acceptEdits',
    'idle-plan',
    'idle-bypassPermissions',
    'typed-not-sent',
    'shell-mode',
    'shortcuts-panel',
    'streaming',
    'tool-running',
    'tool-running-queued',
    'permission-prompt',
    'plan-exit-menu',
    'ask-user-question',
    'model-picker',
    'slash-menu',
    'mention-list',
    'rewind-menu',
    'config-panel',
    'history-search',
    'rate-limit-menu',
    'api-error',
    'transcript-view',
    'exited',
    'shell-prompt-after-exit',
    'resume-picker',
  ],
};

describe('real captures of both TUI lines', () => {
  it.each(Object.keys(REQUIRED))(
    'covers every required state of %s at 80x24 and at 200x50, each labelled with how it was made',
    (v) => {
      const mine = captures.filter((c) => version(c) === v);
      for (const size of ['80x24', '200x50']) {
        const states = new Set(mine.filter((c) => `${c.width}x${c.height}` === size).map((c) => c.state));
        expect(
          REQUIRED[v]!.filter((s) => !states.has(s)),
          `${v} ${size}`,
        ).toEqual([]);
      }
      for (const c of mine) {
        expect(c.file.startsWith(v === '2.1.332' ? `${c.width}x${c.height}/` : `${v}/${c.width}x${c.height}/`)).toBe(
          true,
        );
        expect(c.cliBuild).toContain(`@anthropic-ai/claude-code@${v}`);
        expect(c.steps[0]).toMatch(/^tmux new-session -d -x \d+ -y \d+: claude /);
        expect(c.steps.length).toBeGreaterThan(1);
        expect(fs.existsSync(path.join(PANES, c.file)) && fs.existsSync(path.join(PANES, c.ansiFile))).toBe(true);
      }
      expect(new Set(mine.map((c) => c.cliBuild)).size).toBe(1);
    },
  );

  it.each(captures.map((c) => [c.file, c] as const))('%s gets its manifest verdict', (_file, c) => {
    const text = read(path.join(PANES, c.file));
    const facts = { paneDead: c.paneDead, foreground: c.paneCommand };
    expect(classifyPaneDetailed(text, facts).state).toBe(c.expected);
    // The escaped variant reads the same: escapes are stripped before anything is matched.
    expect(classifyPane(read(path.join(PANES, c.ansiFile)), facts)).toBe(c.expected);
  });

  it('never reads the shell prompt left after claude exited as ready, from the text alone or from tmux', () => {
    const left = captures.filter((c) => c.state === 'shell-prompt-after-exit');
    expect(left.length).toBe(4);
    for (const c of left) {
      const text = read(path.join(PANES, c.file));
      expect(classifyPaneDetailed(text).state, c.file).toBe('not-ready');
      expect(c.paneCommand, `${c.file}: the shell has the pane`).toBe('bash');
      expect(classifyPaneDetailed(text, { foreground: c.paneCommand })).toEqual({
        state: 'not-ready',
        reasons: ['shell-in-foreground'],
      });
    }
    // 2.1.112 keeps its last frame, idle box included, above the prompt: the exit notice below the box decides.
    const older = left.filter((c) => version(c) === '2.1.112');
    for (const c of older)
      expect(classifyPaneDetailed(read(path.join(PANES, c.file))).reasons).toEqual(['claude-exited']);
    // While claude itself runs, tmux names claude's program, never a shell.
    const running = captures.filter((c) => c.paneCommand && !c.paneDead && c.state !== 'shell-prompt-after-exit');
    expect(running.length).toBeGreaterThan(0);
    for (const c of running) expect(['bash', 'sh'], c.file).not.toContain(c.paneCommand);
  });

  it('reads the empty shell-mode box as ready, with the reason the typing code leaves it by', () => {
    const shell = captures.filter((c) => c.state === 'shell-mode');
    expect(shell.length).toBe(4);
    for (const c of shell)
      expect(classifyPaneDetailed(read(path.join(PANES, c.file)))).toEqual({ state: 'ready', reasons: ['shell-mode'] });
  });

  it('needs tmux, not the text, to see a pane killed while idle', () => {
    const killed = captures.filter((c) => c.state === 'exited' && c.file.includes('sigkill'));
    expect(killed.length).toBe(4);
    for (const c of killed) {
      expect(c.paneDead).toBe(true);
      expect(classifyPane(read(path.join(PANES, c.file)), { paneDead: true })).toBe('not-ready');
    }
  });

  it('tells a dim placeholder from typed text only in the escaped capture', () => {
    // 2.1.112 writes no placeholder after an API error; both write one while a message is queued.
    const placeholder = (c: Capture): boolean | undefined =>
      ({
        'api-error': version(c) === '2.1.332',
        'tool-running-queued': true,
        'typed-not-sent': false,
        'tool-running-typed': false,
        'streaming-typed': false,
        'idle-manual': false,
        'idle-default': false,
      })[c.state];
    let checked = 0;
    for (const c of captures.filter((c) => placeholder(c) !== undefined)) {
      expect(hasPlaceholderInput(read(path.join(PANES, c.ansiFile))), c.file).toBe(placeholder(c));
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(24);
  });

  /** Lines the TUIs leave in the history above whatever is on screen now (never a live input box). */
  const HISTORY = [
    '● ok tag:x',
    '⏺ Done.',
    '❯ hello tag:x',
    '❯ 1. a user echo',
    '  ⎿  Running…',
    '  ⎿  (No output)',
    '● Bash(touch x)',
    '✻ Cooked for 8s · done 7:09 PM',
    'Run /model and select Fable to use it.',
    '  · /effort to tune',
    '',
    '  ',
    '╭────╮',
    '│ Welcome back! │',
    '╰────╯',
    '▎ Auto mode is now the default.',
  ];
  const history = fc.array(
    fc.oneof(
      fc.constantFrom(...HISTORY),
      fc.string({ maxLength: 60 }).filter((l) => !l.includes('─') && !l.includes('\n')),
    ),
    { maxLength: 40 },
  );
  const held = captures.filter(
    (c) => (c.expected === 'menu' || c.expected === 'not-ready') && read(path.join(PANES, c.file)).trim() !== '',
  );

  it(
    `never reads a menu or not-ready capture of either line as ready or busy, whatever history is above it ` +
      `(${held.length} captures)`,
    () => {
      expect(new Set(held.map(version))).toEqual(new Set(['2.1.332', '2.1.112']));
      fc.assert(
        fc.property(fc.constantFrom(...held), history, fc.nat(5), fc.boolean(), (c, above, blankTail, escaped) => {
          const text = read(path.join(PANES, escaped ? c.ansiFile : c.file));
          const screen = `${above.join('\n')}\n${text}${'\n'.repeat(blankTail)}`;
          const state = classifyPane(screen, { paneDead: c.paneDead });
          expect(['menu', 'not-ready'], `${c.file}: ${state}`).toContain(state);
        }),
        { numRuns: 3000 },
      );
    },
  );
});

type PeerCase = { set: string; file: string; peer: PaneVerdict; text: string };

const CCMANAGER_MAP: Record<string, PaneVerdict> = { idle: 'ready', busy: 'busy', waiting_input: 'menu' };

function peerCases(): PeerCase[] {
  const cases: PeerCase[] = [];
  for (const e of readJson(path.join(PEERS, 'ccmanager/manifest.json')).filter((e: { file?: string }) => e.file)) {
    cases.push({
      set: 'ccmanager',
      file: e.file,
      peer: CCMANAGER_MAP[e.ccmanagerState]!,
      text: read(path.join(PEERS, 'ccmanager', e.file)),
    });
  }
  for (const m of ['manifest-asserted.json', 'manifest-derived.json']) {
    for (const e of readJson(path.join(PEERS, 'instar', m)))
      cases.push({ set: 'instar', file: e.file, peer: e.verdict, text: read(path.join(PEERS, 'instar', e.file)) });
  }
  return cases;
}

/** Peer verdicts we deliberately do not share: file -> [peer verdict, ours, why]. */
const DIVERGENCES: Record<string, [PaneVerdict, PaneVerdict, string]> = {
  'ccmanager-05-idle--handle-empty-terminal.txt': [
    'ready',
    'not-ready',
    'a blank pane has nothing to type into (boot); ccmanager idle only means "no activity"',
  ],
  'ccmanager-21-idle--detect-idle-when-search-is-present-even-with-spinner-activit.txt': [
    'ready',
    'busy',
    '⌕ is the search field of a picker (/config, ctrl+r history), not the input box; with no box the spinner decides',
  ],
  'ccmanager-22-idle--detect-idle-when-search-is-present.txt': [
    'ready',
    'not-ready',
    '⌕ is the search field of a picker (/config, ctrl+r history), not the input box; nothing shows one',
  ],
  'ccmanager-23-idle--detect-idle-when-search-is-present-even-with-esc-to-cancel.txt': [
    'ready',
    'menu',
    'no input box, and "esc to cancel" marks a dialog where Enter picks something',
  ],
  'ccmanager-24-idle--detect-idle-when-search-is-present-even-with-esc-to-interrup.txt': [
    'ready',
    'busy',
    'no input box, and "esc to interrupt" says a turn is running',
  ],
  'ccmanager-28-idle--ignore-esc-to-interrupt-inside-prompt-box.txt': [
    'ready',
    'busy',
    'text between rules without a ❯ input line is not known to be typed; "esc to interrupt" reads busy ' +
      '(typing still allowed)',
  ],
  'ccmanager-31-idle--ignore-spinner-activity-label-inside-prompt-box.txt': [
    'ready',
    'busy',
    'text between rules without a ❯ input line is not known to be typed; the active spinner reads busy ' +
      '(typing still allowed)',
  ],
  'instar-17-ready--1-only-one-option.txt': [
    'ready',
    'menu',
    'the highlight glyph on a numbered option is a menu even with one option (instar needs two)',
  ],
  'instar-derived-05-ready-busy--StuckInputSentinel--working-pane.txt': [
    'ready',
    'busy',
    'instar reads a busy pane as ready: the footer says esc to interrupt',
  ],
  'instar-derived-08-ready-busy--SessionWatchdog-rate-limit-settle--stuck-throttle-pane.txt': [
    'ready',
    'busy',
    'instar reads a busy pane as ready: the footer says esc to interrupt',
  ],
  'instar-derived-09-ready--SessionWatchdog-rate-limit-settle--working-pane.txt': [
    'ready',
    'busy',
    'an active spinner (Verb… (2m 24s ·) sits right above the prompt',
  ],
  'instar-derived-10-ready--PresenceProxy-standby-honesty--policy-wedge.txt': [
    'ready',
    'not-ready',
    '`❯ msg` with a normal space at column 0 is a user turn echoed in history, not an input line; no box or footer',
  ],
  'instar-derived-11-ready--PresenceProxy-standby-honesty--rate-limit.txt': [
    'ready',
    'not-ready',
    '`❯ did you…` is a history echo and `✻ Cooked for 0s` a finished spinner; no box or footer',
  ],
  'instar-derived-13-not-ready-busy--PresenceProxy-standby-honesty--working-pane.txt': [
    'not-ready',
    'busy',
    'instar has no busy verdict; the spinner line carries esc to interrupt',
  ],
  'instar-derived-18-not-ready-busy--session-reaper--working-frame.txt': [
    'not-ready',
    'busy',
    'instar has no busy verdict; "esc to interrupt" at the bottom says a turn is running',
  ],
};

describe('peer conformance (instar, ccmanager)', () => {
  const cases = peerCases();

  it('reads all 76 peer cases', () => {
    expect(cases.length).toBe(76);
    expect(Object.keys(DIVERGENCES).filter((f) => !cases.some((c) => c.file === f))).toEqual([]);
  });

  it.each(cases.map((c) => [`${c.file}`, c] as const))('%s', (_f, c) => {
    const divergence = DIVERGENCES[c.file];
    const ours = classifyPane(c.text);
    if (divergence) {
      expect(c.peer, 'the DIVERGENCES entry names the peer verdict').toBe(divergence[0]);
      expect(ours).toBe(divergence[1]);
    } else {
      expect(ours).toBe(c.peer);
    }
  });
});

const RULE = '─'.repeat(80);
const IDLE_BOTTOM = [RULE, '❯\u00a0', RULE, '  ⏸ manual mode on · ? for shortcuts'].join('\n');
const BUSY_BOTTOM = [
  '✶ Accomplishing… (3s · ↓ 7 tokens)',
  RULE,
  '❯\u00a0',
  RULE,
  '  ⏵⏵ auto mode on (shift+tab to cycle) · esc to interrupt',
].join('\n');
const PERMISSION_BOTTOM = [' Do you want to proceed?', ' ❯ 1. Yes', '   2. No', ' Esc to cancel · Tab to amend'].join(
  '\n',
);

describe('structural rules', () => {
  it.each([
    ['idle box', IDLE_BOTTOM, 'ready'],
    ['busy box', BUSY_BOTTOM, 'busy'],
    [
      'busy box, footer hidden by typing',
      BUSY_BOTTOM.replace(' · esc to interrupt', '').replace('❯\u00a0', '❯\u00a0half typed'),
      'busy',
    ],
    ['permission prompt', PERMISSION_BOTTOM, 'menu'],
    ['finished spinner above the box', `✻ Cooked for 8s · done 7:09 PM\n${IDLE_BOTTOM}`, 'ready'],
    ['retry line above the box', `✻ API error · retrying in 1s · attempt 1/6\n${IDLE_BOTTOM}`, 'busy'],
    [
      'user echo "❯ 1." in history, then the reply',
      `❯ 1. read the file\n  2. fix it\n\n● done\n\n${IDLE_BOTTOM}`,
      'ready',
    ],
    [
      'reply drawn against the box: the echo above it is history',
      `❯ 1. read the file\n● done\n${IDLE_BOTTOM}`,
      'ready',
    ],
    [
      'slash list above a box holding "/"',
      `  ❯ /add-dir      Add a working directory\n    /agents\n${RULE}\n❯\u00a0/\n${RULE}\n  ⏸ manual mode on`,
      'menu',
    ],
    [
      'footer "Esc to cancel" under a live box',
      `${RULE}\n❯\u00a0\n${RULE}\n  Continuing automatically at 7:00 PM · Esc to cancel`,
      'ready',
    ],
    [
      'unnumbered dialog',
      ' Quick safety check\n ❯ No, exit\n   Yes, I trust this folder\n Enter to confirm · Esc to cancel',
      'menu',
    ],
    [
      'banner prose naming /model',
      'Fable 5 draws down usage faster. Run /model and select it.\n  · /effort to tune',
      'not-ready',
    ],
    [
      'typed text that looks like a menu, inside the box',
      `${RULE}\n❯\u00a01. Yes\n  2. No\n${RULE}\n  ⏸ manual mode on`,
      'ready',
    ],
    ['tmux dead-pane line', `${IDLE_BOTTOM}\nPane is dead (signal 9, Sun Nov 29 19:35:07 2026)`, 'not-ready'],
    [
      'transcript view',
      `● ok\n${'─'.repeat(40)}\n  Showing detailed transcript · ctrl+o to toggle · ? for shortcuts`,
      'not-ready',
    ],
  ] as const)('%s', (_name, text, expected) => {
    expect(classifyPane(text)).toBe(expected);
  });

  it('reports a dead pane as not ready whatever it shows', () => {
    expect(classifyPaneDetailed(IDLE_BOTTOM, { paneDead: true })).toEqual({
      state: 'not-ready',
      reasons: ['pane-dead'],
    });
  });

  it('allows typing only when ready or busy', () => {
    expect([IDLE_BOTTOM, BUSY_BOTTOM, PERMISSION_BOTTOM, ''].map((t) => canTypeNow(t))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('answers non-text input instead of throwing', () => {
    for (const bad of [undefined, null, 42, {}, []]) expect(classifyPane(bad as unknown as string)).toBe('not-ready');
  });
});

/** Lines built from the TUI's own pieces, so random screens hit the structural paths. */
const PIECES = [
  RULE,
  '❯\u00a0',
  '❯ ',
  '❯ 1. Yes',
  '  2. No',
  '  ⏸ manual mode on',
  '✶ Verb… (3s · ↓ 1 tokens)',
  '✻ Cooked for 8s',
  'Esc to cancel',
  '  esc to interrupt',
  '╭────────╮',
  '│ > │',
  '╰────────╯',
  '',
  '   ',
  '\u00a0',
  '\x1b[2m',
  '\x9b201~',
  '● reply',
  '1. item',
  '/model',
  '!\u00a0',
];

describe('properties', () => {
  const screen = fc
    .array(fc.oneof(fc.constantFrom(...PIECES), fc.string(), fc.string({ unit: 'grapheme' })), { maxLength: 60 })
    .map((ls) => ls.join('\n'));

  it('gives every input exactly one of the four verdicts and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), screen), (text) => {
        const { state, reasons } = classifyPaneDetailed(text);
        expect(VERDICTS).toContain(state);
        expect(reasons.length).toBeGreaterThan(0);
        expect(reasons).not.toContain('classifier-error');
      }),
      { numRuns: 2000 },
    );
  });

  it('ignores history: any screen followed by a gap and an idle box reads ready', () => {
    fc.assert(
      fc.property(screen, (history) => {
        expect(classifyPane(`${history}\n\n\n\n${IDLE_BOTTOM}`)).toBe('ready');
      }),
      { numRuns: 1000 },
    );
  });

  it('never calls a permission prompt anything but a menu, whatever is above it', () => {
    fc.assert(
      fc.property(screen, (history) => {
        expect(classifyPane(`${history}\n${PERMISSION_BOTTOM}`)).toBe('menu');
      }),
      { numRuns: 1000 },
    );
  });

  it('never reads prose naming slash commands as ready', () => {
    const word = fc.constantFrom(
      '/model',
      '/effort',
      '/fast',
      '/memory',
      '/status',
      'Run',
      'and',
      'select',
      'to',
      '·',
      'use',
      'Fable',
      '⚠',
      '+1 more',
    );
    const prose = fc.array(
      fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(' ')),
      { minLength: 1, maxLength: 20 },
    );
    fc.assert(
      fc.property(prose, fc.constantFrom('', '  ', '    '), (lines, indent) => {
        expect(classifyPane(lines.map((l) => indent + l).join('\n'))).not.toBe('ready');
      }),
      { numRuns: 1000 },
    );
  });

  it('classifies 1 MB of text (timing printed, not asserted)', () => {
    const big = [
      `${'x'.repeat(1_000_000)}`,
      `${'❯ 1. '.repeat(200_000)}`,
      `${'\x1b]'.repeat(500_000)}`,
      `${'─'.repeat(999_000)}\n${IDLE_BOTTOM}`,
      `${'a\n'.repeat(500_000)}`,
    ];
    for (const text of big) {
      const started = performance.now();
      const state = classifyPane(text);
      const ms = performance.now() - started;
      console.log(`classifyPane on ${text.length} chars: ${state} in ${ms.toFixed(2)} ms`);
      expect(VERDICTS).toContain(state);
    }
  });
});
