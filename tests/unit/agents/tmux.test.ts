/**
 * The pure parts of the claude-tmux backend: transcript entries and tailing, menus read off real
 * pane captures (tests/fixtures/panes), dialogs, the permission relay, message preparation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { boxIsEmpty, prepareMessage } from '../../../src/agents/tmux/input/injection.js';
import { readMenu } from '../../../src/agents/tmux/menus/menus.js';
import {
  autoAllowed,
  isPermissionMenu,
  menuRequest,
  optionIndex,
} from '../../../src/agents/tmux/menus/permission-relay.js';
import { tuiArgs } from '../../../src/agents/tmux/pane/args.js';
import { identifyDialog } from '../../../src/agents/tmux/pane/dialogs.js';
import { toolCallsOnScreen } from '../../../src/agents/tmux/screen/screen-tools.js';
import { paneName } from '../../../src/agents/tmux/tmux-launch.js';
import { TmuxTurn } from '../../../src/agents/tmux/tmux-turn.js';
import {
  projectDirName,
  sessionOfPid,
  TranscriptTail,
  transcriptPath,
} from '../../../src/agents/tmux/transcript/transcript.js';
import { parseTranscriptLine, unwrapPasted } from '../../../src/agents/tmux/transcript/transcript-entries.js';
import { tempDir } from '../../support/claude-rig.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/panes');
const pane = (name: string, size = '200x50') => fs.readFileSync(path.join(FIXTURES, size, `${name}.txt`), 'utf8');
/** A capture of the older TUI line (2.1.112), kept under its version. */
const pane112 = (name: string, size = '200x50') => pane(name, `2.1.112/${size}`);
const ansi = (name: string, size = '200x50') => fs.readFileSync(path.join(FIXTURES, size, `${name}.ansi.txt`), 'utf8');
const line = (o: object) => JSON.stringify(o);

describe('transcript entries (shapes written by 2.1.332)', () => {
  it('reads prompts, tool results, interrupt markers, replies, turn ends and queue operations', () => {
    expect(
      parseTranscriptLine(
        line({ type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u1', promptSource: 'typed' }),
      ),
    ).toEqual({ kind: 'prompt', uuid: 'u1', text: 'hi', source: 'typed' });
    expect(
      parseTranscriptLine(
        line({
          type: 'user',
          message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'done', is_error: false }] },
        }),
      ),
    ).toEqual({ kind: 'tool-result', toolUseId: 't1', isError: false, excerpt: 'done' });
    expect(
      parseTranscriptLine(
        line({
          type: 'user',
          message: { content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] },
        }),
      ),
    ).toEqual({ kind: 'interrupted', forToolUse: true });
    expect(
      parseTranscriptLine(line({ type: 'user', isMeta: true, message: { content: '<local-command-caveat>…' } })),
    ).toMatchObject({ kind: 'command' });
    expect(
      parseTranscriptLine(line({ type: 'user', message: { content: '<command-name>/clear</command-name>' } })),
    ).toMatchObject({ kind: 'command' });
    const reply = parseTranscriptLine(
      line({
        type: 'assistant',
        message: { id: 'msg1', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 3, output_tokens: 2 } },
      }),
    );
    expect(reply).toEqual({
      kind: 'assistant',
      messageId: 'msg1',
      blocks: [{ type: 'text', text: 'ok' }],
      apiError: undefined,
      usage: { inputTokens: 3, outputTokens: 2, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
    });
    expect(
      parseTranscriptLine(
        line({
          type: 'assistant',
          isApiErrorMessage: true,
          error: 'server_error',
          message: { id: 'm', content: [{ type: 'text', text: 'API Error: 500' }] },
        }),
      ),
    ).toMatchObject({ apiError: 'server_error' });
    expect(parseTranscriptLine(line({ type: 'system', subtype: 'turn_duration', durationMs: 263 }))).toEqual({
      kind: 'turn-end',
      durationMs: 263,
    });
    expect(
      parseTranscriptLine(
        line({ type: 'queue-operation', operation: 'remove', content: 'x', reason: 'absorbed_mid_turn' }),
      ),
    ).toEqual({ kind: 'queue', operation: 'remove', content: 'x', reason: 'absorbed_mid_turn' });
  });

  it('is total: blank, malformed, non-object and subagent lines never throw', () => {
    expect(parseTranscriptLine('   ')).toBeUndefined();
    expect(parseTranscriptLine('{"type":')).toEqual({ kind: 'other', type: 'malformed' });
    expect(parseTranscriptLine('[1,2]')).toEqual({ kind: 'other', type: 'not-an-object' });
    expect(
      parseTranscriptLine(
        line({ type: 'assistant', isSidechain: true, message: { content: [{ type: 'text', text: 'sub' }] } }),
      ),
    ).toEqual({ kind: 'other', type: 'assistant' });
    expect(parseTranscriptLine(line({ type: 'user', message: null }))).toMatchObject({ kind: 'prompt', text: '' });
  });

  it('unwraps the <pasted_content> the TUI puts around a large paste', () => {
    expect(unwrapPasted('\n\n<pasted_content id="14c6">\na\nb\n</pasted_content id="14c6">\n')).toBe('a\nb');
    expect(unwrapPasted('plain text')).toBe('plain text');
  });
});

describe('transcript files', () => {
  it('derives the project dir from the cwd: every character outside [A-Za-z0-9] becomes "-"', () => {
    expect(projectDirName('/tmp/rx.dot_under-1/sub.dir')).toBe('-tmp-rx-dot-under-1-sub-dir');
  });

  it('finds a transcript in another project dir when the derived name misses', () => {
    const config = tempDir('cfg');
    fs.mkdirSync(path.join(config, 'projects', 'shortened-name'), { recursive: true });
    fs.writeFileSync(path.join(config, 'projects', 'shortened-name', 's1.jsonl'), '');
    expect(transcriptPath(config, '/some/long/cwd', 's1')).toBe(
      path.join(config, 'projects', 'shortened-name', 's1.jsonl'),
    );
    expect(transcriptPath(config, '/a/b', 'none')).toBe(path.join(config, 'projects', '-a-b', 'none.jsonl'));
  });

  it(
    'tails only complete lines, keeps a character cut between reads, and starts over when the file is ' + 'replaced',
    () => {
      const file = path.join(tempDir('tail'), 't.jsonl');
      fs.writeFileSync(file, '');
      const tail = new TranscriptTail(file);
      const full = line({ type: 'user', message: { content: 'héllo ❯' }, uuid: 'u' });
      const bytes = Buffer.from(`${full}\n`);
      fs.appendFileSync(file, bytes.subarray(0, 30));
      expect(tail.read()).toEqual([]);
      fs.appendFileSync(file, bytes.subarray(30));
      expect(tail.read()).toEqual([{ kind: 'prompt', uuid: 'u', text: 'héllo ❯', source: undefined }]);
      expect(tail.read()).toEqual([]);
      fs.writeFileSync(file, `${line({ type: 'system', subtype: 'turn_duration', durationMs: 1 })}\n`);
      expect(tail.read()).toEqual([{ kind: 'turn-end', durationMs: 1 }]);
      tail.close();
    },
  );

  it('reads the session a live process is on from sessions/<pid>.json', () => {
    const config = tempDir('cfg');
    fs.mkdirSync(path.join(config, 'sessions'));
    fs.writeFileSync(path.join(config, 'sessions', '42.json'), line({ pid: 42, sessionId: 'abc' }));
    expect(sessionOfPid(config, 42)).toBe('abc');
    expect(sessionOfPid(config, 43)).toBeUndefined();
  });
});

describe('menus read off real captures', () => {
  it('reads a numbered permission prompt: question, options, highlight', () => {
    const m = readMenu(pane('permission-prompt--manual-mode-bash-touch'))!;
    expect(m.question).toBe('Do you want to proceed?');
    expect(m.options.map((o) => o.number)).toEqual([1, 2, 3, 4]);
    expect(m.options[0]!.label).toBe('Yes');
    expect(m.options[3]!.label).toBe('No');
    expect(m.highlighted).toBe(0);
    expect(m.body).toContain('touch probe.txt');
    expect(isPermissionMenu(m)).toBe(true);
  });

  it('joins an option wrapped at 80 columns', () => {
    const m = readMenu(pane('permission-prompt--manual-mode-bash-touch', '80x24'))!;
    expect(m.options).toHaveLength(4);
    expect(m.options[1]!.label).toMatch(/^Yes, and always allow access to \/tmp\/\S+ from this project$/);
  });

  it('reads unnumbered dialogs and where the highlight is', () => {
    expect(readMenu(pane('trust-dialog--fresh-home-untrusted-cwd'))).toMatchObject({
      options: [{ label: 'No, exit' }, { label: 'Yes, I trust this folder' }],
      highlighted: 0,
    });
    expect(readMenu(pane('trust-dialog--highlight-moved-to-trust'))!.highlighted).toBe(1);
    expect(readMenu(pane('api-key-dialog--key-not-approved-in-home'))).toMatchObject({
      options: [{ label: 'Yes' }, { label: 'No (recommended)' }],
      highlighted: 1,
    });
    expect(
      readMenu(pane('bypass-warning--dangerously-skip-permissions-not-accepted'))!.options.map((o) => o.label),
    ).toEqual(['No, exit', 'Yes, I accept']);
  });

  it('reads other menus as menus, not permission prompts', () => {
    const plan = readMenu(pane('plan-exit-menu--plan-mode-exitplanmode-call'))!;
    expect(plan.options.map((o) => o.number)).toEqual([1, 2, 3]);
    expect(isPermissionMenu(plan)).toBe(false);
    expect(readMenu(pane('model-picker--slash-model-entered'))!.options).toHaveLength(5);
  });

  it('finds no menu on an idle pane or in a history echo', () => {
    for (const f of [
      'idle-manual--started-permission-mode-manual',
      'idle-after-turn--reply-finished-1-5s-ago',
      'tool-running--bash-sleep-8-3s-in',
    ])
      expect(readMenu(pane(f))).toBeUndefined();
  });

  it('recognises the first-run dialogs by their text', () => {
    expect(identifyDialog(pane('trust-dialog--fresh-home-untrusted-cwd'))).toBe('trust');
    expect(identifyDialog(pane('api-key-dialog--key-not-approved-in-home'))).toBe('api-key');
    expect(identifyDialog(pane('bypass-warning--dangerously-skip-permissions-not-accepted'))).toBe('bypass');
    expect(identifyDialog(pane('permission-prompt--manual-mode-bash-touch'))).toBeUndefined();
    expect(identifyDialog(pane('idle-auto--started-default'))).toBeUndefined();
  });
});

describe('the permission relay', () => {
  const prompt = readMenu(pane('permission-prompt--manual-mode-bash-touch'))!;
  const tool = { id: 't1', name: 'Bash', input: { command: 'touch probe.txt' } };

  it('puts the prompt to the person with its own options; Yes is allow and No is deny', () => {
    const open = menuRequest(prompt, tool);
    expect(open.kind).toBe('permission');
    expect(open.request.toolName).toBe('Bash');
    expect(open.request.input).toEqual({ command: 'touch probe.txt' });
    expect(open.request.options.map((o) => o.id)).toEqual(['allow', 'option-2', 'option-3', 'deny']);
    expect(optionIndex(open, { optionId: 'allow' })).toBe(0);
    expect(optionIndex(open, { optionId: 'deny' })).toBe(3);
    expect(optionIndex(open, { optionId: 'option-2' })).toBe(1);
    expect(optionIndex(open, { optionId: 'nope' })).toBeUndefined();
  });

  const prompts = [
    ['2.1.332 200x50', pane('permission-prompt--manual-mode-bash-touch')],
    ['2.1.332 80x24', pane('permission-prompt--manual-mode-bash-touch', '80x24')],
    ['2.1.112 200x50', pane112('permission-prompt--default-mode-bash-touch')],
    ['2.1.112 80x24', pane112('permission-prompt--default-mode-bash-touch', '80x24')],
  ] as const;

  it.each(prompts)(
    'relays the question, the tool, its whole input and the options, nothing of the drawing (%s)',
    (_v, text) => {
      const long = {
        id: 't2',
        name: 'Bash',
        input: {
          command: `touch probe.txt && ${'echo a-long-argument '.repeat(12)}`,
          description: 'Run the requested command',
        },
      };
      const { request } = menuRequest(readMenu(text)!, long, 'acceptEdits');
      expect(request.toolName).toBe('Bash');
      expect(request.input).toEqual(long.input);
      expect(request.description).toBe('Do you want to proceed?');
      expect(request.options[0]).toEqual({ id: 'allow', label: 'Yes' });
      expect(request.options.at(-1)).toEqual({ id: 'deny', label: 'No' });
      const all = JSON.stringify(request);
      for (const drawn of ['Tip:', '─', '╌', '│', 'Esc to cancel', 'make a file', 'Claude Code'])
        expect(all).not.toContain(drawn);
    },
  );

  it.each(prompts)(
    'marks options that change later prompts, and leaves them out when the person asked to be asked (%s)',
    (_v, text) => {
      const view = readMenu(text)!;
      const marked = menuRequest(view, tool, 'acceptEdits').request.options;
      const sessionWide = marked.filter((o) => o.effect);
      expect(sessionWide.length).toBeGreaterThanOrEqual(1);
      expect(sessionWide.map((o) => o.label).join(' ')).toMatch(/always allow access/);
      for (const o of sessionWide) expect(o.effect).toMatch(/no longer asked|without asking you/);
      if (text.includes('switch to auto mode'))
        expect(marked.find((o) => /switch to auto mode/.test(o.label))!.effect).toMatch(
          /^Switches the session to auto mode/,
        );
      for (const mode of ['relay', 'manual'] as const) {
        const open = menuRequest(view, tool, mode);
        expect(open.request.options.map((o) => o.label)).toEqual(['Yes', 'No']);
        expect(open.request.options.map((o) => o.id)).toEqual(['allow', 'deny']);
        // The answer still lands on the right line of the menu on screen.
        expect(open.screenIndex[optionIndex(open, { optionId: 'deny' })!]).toBe(view.options.length - 1);
      }
    },
  );

  it('names the tool and what the prompt shows when the transcript has not shown the tool yet', () => {
    expect(menuRequest(prompt, undefined).request).toMatchObject({
      toolName: 'Bash',
      input: { shown: 'touch probe.txt' },
      description: 'Do you want to proceed?',
    });
    expect(
      menuRequest(readMenu(pane112('permission-prompt--default-mode-bash-touch'))!, undefined).request,
    ).toMatchObject({ toolName: 'Bash', input: { shown: 'touch probe.txt\nRun the requested command' } });
  });

  it.each([
    ['2.1.332', pane('model-picker--slash-model-entered'), 5],
    ['2.1.112', pane112('model-picker--slash-model-entered'), 4],
  ] as const)(
    'describes a menu without a question by its own title and options, not the scrollback above it (%s /model)',
    (_v, text, count) => {
      const open = menuRequest(readMenu(text)!, undefined, 'relay');
      expect(open.kind).toBe('menu');
      expect(open.request.toolName).toBe('menu');
      expect(open.request.input).toEqual({ title: 'Select model' });
      expect(open.request.description!.split('\n')[0]).toBe('Select model');
      expect(open.request.description!.split('\n')).toHaveLength(2);
      for (const scrollback of ['Auto mode is now', 'Claude Code v', '/model', 'API Usage Billing'])
        expect(open.request.description).not.toContain(scrollback);
      expect(open.request.options).toHaveLength(count);
    },
  );

  it(
    'marks a consent dialog’s mode-changing answers too, and offers only the way out under relay (2.1.112 ' +
      'auto mode)',
    () => {
      const view = readMenu(pane112('auto-mode-consent--started-permission-mode-auto'))!;
      const marked = menuRequest(view, undefined, 'acceptEdits').request.options;
      expect(marked.map((o) => [o.label, !!o.effect])).toEqual([
        ['Yes, and make it my default mode', true],
        ['Yes, enable auto mode', true],
        ['No, exit', false],
      ]);
      expect(menuRequest(view, undefined, 'relay').request.options.map((o) => o.label)).toEqual(['No, exit']);
    },
  );

  it('describes the other menus of both TUI lines by their own words', () => {
    const limit = menuRequest(readMenu(pane112('rate-limit-menu--mock-429-subscription'))!, undefined, 'relay').request;
    expect(limit).toMatchObject({
      toolName: 'menu',
      description: 'What do you want to do?',
      input: { title: 'What do you want to do?', question: 'What do you want to do?' },
    });
    expect(limit.options.map((o) => o.label)).toEqual(['Stop and wait for limit to reset', 'Upgrade your plan']);
    const rewind = menuRequest(readMenu(pane('rewind-menu--esc-esc-after-a-turn'))!, undefined).request;
    expect(rewind.description).toMatch(/^Rewind\nRestore the code/);
    expect(rewind.description).not.toContain('Cooked');
    const plan = menuRequest(
      readMenu(pane('plan-exit-menu--plan-mode-exitplanmode-call'))!,
      undefined,
      'acceptEdits',
    ).request;
    expect(plan.description).toContain('1. Read the parser');
    expect(plan.options.find((o) => /auto mode/.test(o.label))?.effect).toMatch(/auto mode/);
  });

  it('approves on its own only what the allowlist names', () => {
    expect(autoAllowed([], tool)).toBeUndefined();
    expect(autoAllowed(['Read'], tool)).toBeUndefined();
    expect(autoAllowed(['Bash'], tool)).toBe('Bash');
    expect(autoAllowed(['Bash(touch probe.txt)'], tool)).toBe('Bash(touch probe.txt)');
    expect(autoAllowed(['Bash(touch *)'], tool)).toBe('Bash(touch *)');
    expect(autoAllowed(['Bash(git status*)'], tool)).toBeUndefined();
    expect(autoAllowed(['Bash(touch *)'], { ...tool, input: { command: 'touch a; rm -rf ~' } })).toBeUndefined();
    expect(autoAllowed(['Bash(touch *)'], { ...tool, input: { command: 'touch $(whoami)' } })).toBeUndefined();
    expect(autoAllowed(['Bash'], undefined)).toBeUndefined();
  });
});

describe('tool calls read off the last screen', () => {
  it.each([
    ['2.1.332 200x50', pane('tool-running--bash-sleep-8-3s-in')],
    ['2.1.332 80x24', pane('tool-running--bash-sleep-8-3s-in', '80x24')],
    ['2.1.112 200x50', pane112('tool-running--bash-sleep-8-3s-in')],
    ['2.1.112 80x24', pane112('tool-running--bash-sleep-8-3s-in', '80x24')],
  ] as const)('names the Bash call the turn started (%s)', (_v, text) => {
    expect(toolCallsOnScreen(text)).toEqual([{ name: 'Bash', input: { command: 'sleep 8' } }]);
  });

  it('counts only what follows the turn’s own message', () => {
    const screen = pane('tool-running--bash-sleep-8-3s-in');
    expect(toolCallsOnScreen(screen, 'id=not-on-this-screen')).toEqual([]);
    expect(toolCallsOnScreen(screen, 'run it [[bash:sleep 8]]')).toHaveLength(1);
    expect(toolCallsOnScreen(pane('idle-after-turn--reply-finished-1-5s-ago'))).toEqual([]);
  });
});

describe('typing', () => {
  it('wraps every input with its own id, strips control sequences, and marks the message', () => {
    const m = prepareMessage(
      [
        { id: 'a', text: `one\x1b[201~two`, source: 'web:x' },
        { id: 'b', text: 'three' },
      ],
      { thresholdBytes: 10_000, fileDir: tempDir('msg') },
    );
    expect(m.typed).toBe(m.full);
    expect(m.typed).not.toContain('\x1b');
    expect(m.typed).toMatch(
      new RegExp(
        String.raw`^<<<EXTERNAL_USER_MESSAGE id=(\w+) from="web:x">>>\nonetwo\n<<<END_EXTERNAL_USER_MESSAGE id=\1>>>` +
          String.raw`\n\n<<<EXTERNAL_USER_MESSAGE id=\w+>>>\nthree\n`,
      ),
    );
    expect(m.typed).toContain(m.marker);
    expect(m.file).toBeUndefined();
  });

  it('saves a message above the threshold to a file and types a reference carrying the marker', () => {
    const dir = tempDir('msg');
    const m = prepareMessage([{ id: 'a', text: 'y'.repeat(5000) }], { thresholdBytes: 1024, fileDir: dir });
    expect(fs.readFileSync(m.file!, 'utf8')).toBe(m.full);
    expect(path.dirname(m.file!)).toBe(dir);
    expect(m.typed).toContain(m.file!);
    expect(m.typed).toContain(m.marker);
    expect(m.typed.length).toBeLessThan(500);
  });

  it('tells an empty box (placeholder included) from one holding text', () => {
    expect(boxIsEmpty(ansi('idle-manual--started-permission-mode-manual'))).toBe(true);
    expect(boxIsEmpty(ansi('tool-running-queued--enter-pressed-during-bash-sleep-8'))).toBe(true);
    expect(boxIsEmpty(ansi('typed-not-sent--typed-into-idle-box'))).toBe(false);
    expect(boxIsEmpty(ansi('trust-dialog--fresh-home-untrusted-cwd'))).toBeUndefined();
  });

  it('builds the TUI command line: a new session id or --resume, manual mode for relay, the message dir', () => {
    const base = { permissionMode: 'relay' as const, model: 'sonnet' };
    const fresh = tuiArgs(base, { newSessionId: 'u1', addDirs: ['/d'] });
    expect(fresh.slice(0, 4)).toEqual(['--session-id', 'u1', '--model', 'sonnet']);
    expect(fresh).toContain('--append-system-prompt');
    expect(fresh.join(' ')).toContain('--permission-mode manual');
    expect(fresh.join(' ')).toContain('--add-dir /d');
    expect(tuiArgs({ permissionMode: 'bypassPermissions' }, { resume: 's1' })).toEqual(
      expect.arrayContaining(['--resume', 's1', '--dangerously-skip-permissions']),
    );
  });

  it('names panes per conversation, exact-target safe', () => {
    expect(paneName('web:owner')).toMatch(/^rudder-web-owner-[0-9a-f]{8}$/);
    expect(paneName('web:a.b')).not.toBe(paneName('web:a:b'));
  });
});

describe('a turn without an end marker', () => {
  const QUIET = 3000;
  const text = (t: string) =>
    parseTranscriptLine(
      line({
        type: 'assistant',
        uuid: 'a1',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: t }] },
      }),
    )!;

  it(
    'is quiet only after the pane idled and the transcript was silent for the whole time since its input ' + 'arrived',
    () => {
      vi.useFakeTimers({ now: 1_000_000 });
      try {
        const readySince = Date.now(); // the pane went idle after the turn before
        const turn = new TmuxTurn(['q2']);
        // Typed after a respawn that took 9 s: neither the old idle nor the time spent waiting counts.
        vi.setSystemTime(Date.now() + 9000);
        expect(turn.quiet(readySince, Date.now(), QUIET)).toBe(false);
        turn.arrive();
        expect(turn.quiet(readySince, Date.now() + 10, QUIET)).toBe(false);
        expect(turn.quiet(readySince, Date.now() + QUIET - 1, QUIET)).toBe(false);
        expect(turn.quiet(readySince, Date.now() + QUIET + 1, QUIET)).toBe(true);
        // A pane that went idle after the arrival counts from then; an entry restarts the silence.
        expect(turn.quiet(Date.now() + 2000, Date.now() + QUIET + 1, QUIET)).toBe(false);
        vi.setSystemTime(Date.now() + 2000);
        turn.take(text('working on it'));
        expect(turn.quiet(readySince, Date.now() + QUIET - 1, QUIET)).toBe(false);
        expect(turn.quiet(undefined, Date.now() + QUIET + 1, QUIET)).toBe(false);
        expect(turn.quiet(readySince, Date.now() + QUIET + 1, QUIET)).toBe(true);
      } finally {
        vi.useRealTimers();
      }
    },
  );
});
