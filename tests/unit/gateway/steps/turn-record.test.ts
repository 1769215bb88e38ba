/** The step bookkeeping of one turn, event by event (pure: no process, no store). */
import { describe, expect, it } from 'vitest';
import { toolSummary } from '../../../../src/gateway/steps/summarize.js';
import { TurnRecord } from '../../../../src/gateway/steps/turn-record.js';
import { type PermissionStep, STEP_LIMITS, type ToolStep } from '../../../../src/gateway/steps/types.js';

const noText = () => undefined;

describe('TurnRecord', () => {
  it('turns events into ordered steps with stable ids', () => {
    const r = new TurnRecord('web:c', 't1', ['m1'], 1000);
    r.apply({ type: 'text', text: 'Looking.' }, noText, 1001);
    r.apply({ type: 'tool-use', id: 'tu1', name: 'Read', input: { file_path: '/src/a.ts' } }, noText, 1002);
    r.apply({ type: 'tool-result', toolUseId: 'tu1', isError: false, excerpt: 'line 1' }, noText, 1010);
    r.apply({ type: 'steer-absorbed', inputId: 'm2' }, (id) => (id === 'm2' ? 'and the tests' : undefined), 1011);
    r.apply({ type: 'text', text: 'Done.' }, noText, 1020);
    const end = r.end({ status: 'answered', finalText: 'Done.' }, 1030);
    const v = r.view();
    expect(v.steps.map((s) => [s.id, s.kind])).toEqual([
      ['t1:0', 'text'],
      ['t1:1', 'tool'],
      ['t1:2', 'steer'],
      ['t1:3', 'text'],
    ]);
    expect(v.steps[1]).toMatchObject({ summary: '/src/a.ts', status: 'ok', output: 'line 1', at: 1002, endedAt: 1010 });
    expect(v.steps[2]).toMatchObject({ messageId: 'm2', text: 'and the tests' });
    expect(v).toMatchObject({ status: 'answered', inputIds: ['m1', 'm2'], endedAt: 1030, stepCount: 4 });
    expect(end.map((s) => s.id)).toEqual(['t1:3']);
    expect(v.steps[3]).toMatchObject({ final: true });
    expect(v.steps[0]).not.toHaveProperty('final');
  });

  it('marks the tools a stop the person asked for cut off, and only those', () => {
    const r = new TurnRecord('web:c', 't5', ['m1']);
    r.apply({ type: 'tool-use', id: 'tu1', name: 'Bash', input: { command: 'false' } }, noText);
    r.apply({ type: 'tool-result', toolUseId: 'tu1', isError: true, excerpt: 'exit 1' }, noText);
    r.apply({ type: 'tool-use', id: 'tu2', name: 'Bash', input: { command: 'sleep 30' } }, noText);
    r.apply({ type: 'tool-use', id: 'tu3', name: 'Bash', input: { command: 'sleep 40' } }, noText);
    r.stopping();
    r.apply(
      { type: 'tool-result', toolUseId: 'tu2', isError: true, excerpt: "The user doesn't want to proceed" },
      noText,
    );
    r.end({ status: 'stopped' });
    const tools = r.view().steps as ToolStep[];
    expect(tools.map((t) => [t.status, t.stopped ?? false])).toEqual([
      ['error', false],
      ['error', true],
      ['error', true],
    ]);
    // Without a stop asked for, a turn that ends stopped (an interrupt by the queue mode) marks nothing.
    const other = new TurnRecord('web:c', 't6', ['m1']);
    other.apply({ type: 'tool-use', id: 'tu1', name: 'Bash', input: { command: 'sleep 30' } }, noText);
    other.end({ status: 'stopped' });
    expect((other.view().steps[0] as ToolStep).stopped).toBeUndefined();
  });

  it('on a stop keeps the half-streamed text, ends running tools and withdraws open requests', () => {
    const r = new TurnRecord('web:c', 't2', ['m1']);
    r.apply({ type: 'tool-use', id: 'tu1', name: 'Bash', input: { command: 'sleep 30' } }, noText);
    r.apply(
      {
        type: 'permission',
        request: {
          requestId: 'r1',
          toolName: 'Bash',
          input: { command: 'rm -rf build' },
          options: [
            { id: 'allow', label: 'Allow' },
            { id: 'deny', label: 'Deny' },
          ],
        },
      },
      noText,
    );
    r.apply({ type: 'text-delta', text: 'I was say' }, noText);
    r.apply({ type: 'text-delta', text: 'ing' }, noText);
    r.end({ status: 'stopped' });
    const v = r.view();
    expect(v.steps.map((s) => s.kind)).toEqual(['tool', 'permission', 'text']);
    expect(v.steps[0]).toMatchObject({ status: 'error', output: 'Stopped before it finished.' });
    expect(v.steps[1]).toMatchObject({ status: 'withdrawn', summary: 'rm -rf build' });
    expect(v.steps[2]).toMatchObject({ text: 'I was saying', partial: true });
    expect(v.status).toBe('stopped');
  });

  it('ignores a result for a tool it never saw start, and an answer to a request already closed', () => {
    const r = new TurnRecord('web:c', 't3', ['m1']);
    expect(r.apply({ type: 'tool-result', toolUseId: 'nope', isError: false, excerpt: 'x' }, noText)).toEqual([]);
    r.apply(
      {
        type: 'permission',
        request: {
          requestId: 'r1',
          toolName: 'Write',
          input: { file_path: '/a' },
          options: [{ id: 'allow', label: 'Allow' }],
        },
      },
      noText,
    );
    expect(r.answered('r1', { optionId: 'allow', label: 'Allow', by: 'telegram:1' })).toHaveLength(1);
    expect(r.answered('r1', { optionId: 'deny', label: 'Deny', by: 'telegram:2' })).toEqual([]);
    expect(r.view().steps[0]).toMatchObject({ status: 'answered', answer: { by: 'telegram:1' } });
  });

  it(
    'keeps a permission request whole (so what is approved was shown), marks one too long to carry, and ' +
      'keeps what an option changes',
    () => {
      const r = new TurnRecord('web:c', 't5', ['m1']);
      const command = `echo ${'y'.repeat(20_000)} end`;
      r.apply(
        {
          type: 'permission',
          request: {
            requestId: 'r1',
            toolName: 'Bash',
            input: { command },
            options: [
              { id: 'allow', label: 'Yes' },
              { id: 'option-2', label: "Yes, and don't ask again", effect: 'later Bash commands run without asking' },
            ],
          },
        },
        noText,
      );
      r.apply(
        {
          type: 'permission',
          request: {
            requestId: 'r2',
            toolName: 'Write',
            input: { file_path: '/f', content: 'z'.repeat(STEP_LIMITS.permissionInputField + 1) },
            options: [{ id: 'deny', label: 'No' }],
          },
        },
        noText,
      );
      const [whole, cut] = r.view().steps as PermissionStep[];
      expect(whole!.input.command).toBe(command);
      expect(whole!.inputCut).toBeUndefined();
      expect(whole!.options[1]).toEqual({
        id: 'option-2',
        label: "Yes, and don't ask again",
        effect: 'later Bash commands run without asking',
      });
      expect(cut!.inputCut).toBe(true);
    },
  );

  it('bounds tool inputs and outputs, and says when it cut', () => {
    const r = new TurnRecord('web:c', 't4', ['m1']);
    const big = 'x'.repeat(STEP_LIMITS.inputField + 10);
    r.apply({ type: 'tool-use', id: 'tu1', name: 'Write', input: { file_path: '/f', content: big } }, noText);
    r.apply(
      { type: 'tool-result', toolUseId: 'tu1', isError: true, excerpt: 'e'.repeat(STEP_LIMITS.output + 1) },
      noText,
    );
    const step = r.view().steps[0] as ToolStep;
    expect(String(step.input.content)).toMatch(/… \[10 more characters\]$/);
    expect(step.output).toHaveLength(STEP_LIMITS.output);
    expect(step).toMatchObject({ status: 'error', outputTruncated: true });
  });

  it('summarises each tool by what it acts on, on one line', () => {
    expect(toolSummary('Bash', { command: 'npm test\n  -- --run' })).toBe('npm test ⏎ -- --run');
    expect(toolSummary('Grep', { pattern: 'TODO', path: 'src' })).toBe('TODO in src');
    expect(toolSummary('Glob', { pattern: '**/*.ts' })).toBe('**/*.ts');
    expect(toolSummary('WebFetch', { url: 'https://example.com' })).toBe('https://example.com');
    expect(toolSummary('mcp__x__y', { a: 1 })).toBe('{"a":1}');
    expect(toolSummary('Bash', { command: 'y'.repeat(500) })).toHaveLength(STEP_LIMITS.summary);
  });
});
