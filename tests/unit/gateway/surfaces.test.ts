/**
 * The channel-neutral parts of progress: the card from a turn's steps, the permission prompt, button data and settings.
 * Pure.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { parseButton } from '../../../src/gateway/intake/presses.js';
import { code } from '../../../src/gateway/markdown.js';
import { composePrompt, PROMPT_INPUT_LIMIT } from '../../../src/gateway/permissions/prompt-text.js';
import type { Step, TurnView } from '../../../src/gateway/steps/types.js';
import { collapsedCard, elapsed, runningCard } from '../../../src/gateway/surfaces/card-view.js';
import { progressFor } from '../../../src/gateway/surfaces/settings.js';

const T0 = 1_000_000;
let index = 0;
const base = (at: number) => ({ id: `t:${index}`, turnId: 't', conversationId: 'c', index: index++, at: T0 + at });
const tool = (
  at: number,
  summary: string,
  endedAt?: number,
  status: 'running' | 'ok' | 'error' = endedAt ? 'ok' : 'running',
): Step => ({
  ...base(at),
  kind: 'tool',
  toolUseId: `u${at}`,
  name: 'Bash',
  summary,
  input: {},
  status,
  ...(endedAt ? { endedAt: T0 + endedAt } : {}),
});
const text = (at: number, t: string, final = false): Step => ({
  ...base(at),
  kind: 'text',
  text: t,
  ...(final ? { final } : {}),
});
const turn = (steps: Step[], status: TurnView['status'] = 'running', endedAt?: number): TurnView => ({
  id: 't',
  conversationId: 'c',
  status,
  startedAt: T0,
  inputIds: ['m1'],
  stepCount: steps.length,
  steps,
  ...(endedAt ? { endedAt: T0 + endedAt } : {}),
});

describe('the progress card', () => {
  it('shows the current step, the last four finished ones, the count of earlier ones, the queue and Stop', () => {
    index = 0;
    const steps = [
      tool(0, 'npm ci', 40_000),
      text(41_000, 'Installed; now the tests'),
      tool(42_000, 'npm test', 80_000, 'error'),
      text(81_000, 'One failed; fixing'),
      tool(82_000, 'sed -i s/a/b/ x.ts', 83_000),
      tool(84_000, 'npm test'),
    ];
    const card = runningCard(turn(steps), { now: T0 + 192_000, queued: 2, textMode: 'card', stopData: 's:ref1' });
    expect(card.header).toBe('⏳ Working · 6 steps · 3m12s');
    expect(card.lines).toEqual([
      '… 1 earlier step',
      '💬 Installed; now the tests',
      '✗ **Bash** `npm test` (38s)',
      '💬 One failed; fixing',
      '✓ **Bash** `sed -i s/a/b/ x.ts` (1s)',
      '▶️ **Bash** `npm test` · 1m48s',
      '📥 2 messages waiting',
    ]);
    expect(card.buttons).toEqual([{ label: '⏹ Stop', data: 's:ref1', style: 'danger' }]);
    expect(card.final).toBe(false);
  });

  it('keeps text out with text "final-only", shows what is being written, and says when the agent is thinking', () => {
    index = 0;
    const steps = [text(0, 'Looking around'), tool(1000, 'ls', 1500)];
    expect(runningCard(turn(steps), { now: T0 + 5000, queued: 0, textMode: 'final-only' }).lines).toEqual([
      '✓ **Bash** `ls` (0s)',
      '💭 thinking…',
    ]);
    expect(
      runningCard(turn(steps), {
        now: T0 + 5000,
        queued: 0,
        textMode: 'card',
        streaming: 'The answer is `42`',
      }).lines.at(-1),
    ).toBe("✍️ The answer is '42'");
  });

  it('collapses to one line: answered, stopped, failed; the final reply is not counted', () => {
    index = 0;
    const steps = [tool(0, 'a', 1000), tool(1000, 'b', 2000), text(2000, 'done', true)];
    expect(collapsedCard(turn(steps, 'answered', 192_000), 'card', 0)).toEqual({
      header: '✓ 2 steps · 3m12s',
      lines: [],
      buttons: [],
      final: true,
    });
    expect(collapsedCard(turn(steps.slice(0, 1), 'stopped', 4000), 'card', 0).header).toBe(
      '⏹ stopped after 1 step · 4s',
    );
    expect(collapsedCard(turn([], 'failed', 9000), 'card', 0).header).toBe('⚠️ failed after 0 steps · 9s');
    expect(elapsed(3_725_000)).toBe('1h02m');
  });

  it('puts any text in an inline code span, backticks included', () => {
    expect(code('ls')).toBe('`ls`');
    expect(code('echo `date`')).toBe('`` echo `date` ``');
  });
});

describe('the permission prompt', () => {
  const req = (input: Record<string, unknown>) => ({
    requestId: 'r',
    toolName: 'Bash',
    input,
    description: 'Run it',
    options: [
      { id: 'allow', label: 'Allow' },
      { id: 'deny', label: 'Deny' },
    ],
  });

  it(
    'shows the whole input: short values inline, long or multi-line ones in a block that no backtick can ' + 'close',
    () => {
      const body = 'line one\n```\nline three';
      const p = composePrompt(req({ command: 'rm -rf build', content: body }), { buttons: true });
      expect(p.cut).toBe(false);
      expect(p.text).toBe(
        [
          '🔐 **The agent asks to use Bash**',
          'Run it',
          '**command**: `rm -rf build`',
          '**content**',
          '````',
          body,
          '````',
          '1. Allow\n2. Deny',
          'Press a button, or reply with the option number.',
        ].join('\n'),
      );
      expect(
        composePrompt(req({ command: 'ls' }), { buttons: false }).text.endsWith(
          'Reply with the option number, /allow or /deny.',
        ),
      ).toBe(true);
    },
  );

  it('marks an input over the limit as cut, says what is not shown, and offers only Deny', () => {
    const p = composePrompt(req({ command: 'x'.repeat(PROMPT_INPUT_LIMIT + 10), other: 'y' }), { buttons: true });
    expect(p.cut).toBe(true);
    expect(p.inputChars).toBe(PROMPT_INPUT_LIMIT + 11);
    expect(p.text).toContain('✂️ 10 more characters of **command** are not shown.');
    expect(p.text).toContain('✂️ Not shown: **other**.');
    expect(p.text).toContain('cannot be approved from this chat');
    expect(p.offered).toEqual([{ id: 'deny', label: 'Deny', number: 2 }]);
    expect(p.text).toContain('2. Deny');
    expect(p.text).not.toContain('1. Allow');
  });
});

describe('button data and settings', () => {
  it('parses only Rudder’s own button data', () => {
    expect(parseButton('p:abc_-1:2')).toEqual({ kind: 'permission', ref: 'abc_-1', number: 2 });
    expect(parseButton('s:abc')).toEqual({ kind: 'stop', ref: 'abc' });
    expect(parseButton('c:abc:y')).toEqual({ kind: 'confirm', ref: 'abc', yes: true });
    expect(parseButton('c:abc:n')).toEqual({ kind: 'confirm', ref: 'abc', yes: false });
    expect(parseButton('c:abc:maybe')).toBeUndefined();
    expect(parseButton('p:abc')).toBeUndefined();
    expect(parseButton('x:1')).toBeUndefined();
  });

  it('defaults progress, lets a channel override single keys, and rejects unknown keys and bad values by name', () => {
    const cfg = parseConfig({
      progress: { editEverySeconds: 5 },
      channels: { telegram: { progress: { text: 'messages' } }, discord: {} },
    });
    expect(progressFor(cfg, 'telegram')).toEqual({
      mode: 'card',
      minTurnSeconds: 3,
      editEverySeconds: 5,
      text: 'messages',
    });
    expect(progressFor(cfg, 'discord')).toEqual({ mode: 'card', minTurnSeconds: 3, editEverySeconds: 5, text: 'card' });
    expect(() => parseConfig({ progress: { every: 3 } })).toThrow(/progress\.every: unknown key/);
    expect(() => parseConfig({ channels: { slack: { progress: { mode: 'live' } } } })).toThrow(
      /channels\.slack\.progress\.mode/,
    );
    expect(() => parseConfig({ progress: { editEverySeconds: 0 } })).toThrow(/progress\.editEverySeconds/);
  });
});
