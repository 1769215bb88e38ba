/** The session/update mapper: each agent's shapes (shared/acp-notes.md) as TurnEvents, and never a throw. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellCommand, UpdateMapper } from '../../../../src/agents/acp/updates.js';
import { TOOL_EXCERPT_CHARS } from '../../../../src/agents/session.js';

const chunk = (text: string, extra: object = {}) => ({
  sessionUpdate: 'agent_message_chunk',
  content: { type: 'text', text },
  ...extra,
});

describe('UpdateMapper', () => {
  it('streams message chunks as text-delta and completes the message as text at the next other update', () => {
    const m = new UpdateMapper();
    expect(m.map(chunk('Hel'))).toEqual([{ type: 'text-delta', text: 'Hel' }]);
    expect(m.map(chunk('lo'))).toEqual([{ type: 'text-delta', text: 'lo' }]);
    const next = m.map({
      sessionUpdate: 'tool_call',
      toolCallId: 't1',
      title: 'ls',
      kind: 'execute',
      status: 'pending',
    });
    expect(next[0]).toEqual({ type: 'text', text: 'Hello' });
    expect(m.finish()).toEqual([]);
    expect(m.texts).toEqual(['Hello']);
  });

  it('splits messages on a new messageId, and completes the last one at the end', () => {
    const m = new UpdateMapper();
    m.map(chunk('one', { messageId: 'a' }));
    expect(m.map(chunk('two', { messageId: 'b' }))).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text-delta', text: 'two' },
    ]);
    expect(m.finish()).toEqual([{ type: 'text', text: 'two' }]);
    expect(m.texts).toEqual(['one', 'two']);
  });

  it("turns Claude's informational chunks into a status, not into the reply", () => {
    const m = new UpdateMapper();
    const e = m.map(chunk('**Warning:** billing', { _meta: { claudeCode: { kind: 'informational' } } }));
    expect(e).toEqual([{ type: 'status', message: '**Warning:** billing' }]);
    expect(m.finish()).toEqual([]);
  });

  it("waits for Claude's input before the tool-use, then gives the result from the content", () => {
    const m = new UpdateMapper();
    const first = m.map({
      sessionUpdate: 'tool_call',
      toolCallId: 'toolu_1',
      title: 'Terminal',
      kind: 'execute',
      status: 'pending',
      rawInput: {},
      _meta: { claudeCode: { toolName: 'Bash' } },
    });
    expect(first).toEqual([]);
    const input = m.map({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'toolu_1',
      title: 'echo hi',
      rawInput: { command: 'echo hi', description: 'Say hi' },
    });
    expect(input).toEqual([
      {
        type: 'tool-use',
        id: 'toolu_1',
        name: 'Bash',
        input: { command: 'echo hi', description: 'Say hi', kind: 'execute', title: 'echo hi' },
      },
    ]);
    const done = m.map({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'toolu_1',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'hi' } }],
    });
    expect(done).toEqual([{ type: 'tool-result', toolUseId: 'toolu_1', isError: false, excerpt: 'hi' }]);
  });

  it("unwraps Codex's shell command and takes its output from rawOutput", () => {
    const m = new UpdateMapper();
    const use = m.map({
      sessionUpdate: 'tool_call',
      toolCallId: 'call_1',
      title: 'echo hi',
      kind: 'execute',
      status: 'in_progress',
      rawInput: { command: ['/bin/bash', '-lc', "echo 'hi'"], cwd: '/p' },
    });
    expect(use[0]).toMatchObject({ type: 'tool-use', name: 'Bash', input: { command: "echo 'hi'", cwd: '/p' } });
    const done = m.map({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_1',
      status: 'failed',
      rawOutput: { formatted_output: 'boom\n', exit_code: 1 },
    });
    expect(done).toEqual([{ type: 'tool-result', toolUseId: 'call_1', isError: true, excerpt: 'boom\n' }]);
  });

  it('shows a call first seen at its completion (Gemini sends no tool_call) once, named by its kind', () => {
    const m = new UpdateMapper();
    const done = m.map({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'g1',
      kind: 'read',
      title: 'notes.md',
      status: 'completed',
      locations: [{ path: '/p/notes.md' }],
      content: [],
    });
    expect(done).toEqual([
      {
        type: 'tool-use',
        id: 'g1',
        name: 'Read',
        input: { file_path: '/p/notes.md', kind: 'read', title: 'notes.md', locations: [{ path: '/p/notes.md' }] },
      },
      { type: 'tool-result', toolUseId: 'g1', isError: false, excerpt: '' },
    ]);
    expect(m.map({ sessionUpdate: 'tool_call_update', toolCallId: 'g1', status: 'completed' })).toEqual([]);
  });

  it('describes the tool a permission request names without taking its explanation for output', () => {
    const m = new UpdateMapper();
    const tool = m.describeTool({
      toolCallId: 'g2',
      kind: 'execute',
      title: 'rm -rf build',
      content: [{ type: 'content', content: { type: 'text', text: '[current working directory /p]' } }],
    });
    expect(tool).toEqual({
      id: 'g2',
      name: 'Bash',
      input: { command: 'rm -rf build', kind: 'execute', title: 'rm -rf build' },
    });
    const done = m.map({ sessionUpdate: 'tool_call_update', toolCallId: 'g2', status: 'completed', content: [] });
    expect(done.at(-1)).toEqual({ type: 'tool-result', toolUseId: 'g2', isError: false, excerpt: '' });
  });

  it('folds a thought into a Reasoning step and a plan into a TodoWrite step', () => {
    const m = new UpdateMapper();
    m.map({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: '**Plan** first, ' } });
    m.map({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'then act' } });
    const e = m.map({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read', priority: 'high', status: 'completed' },
        { content: 'Write', priority: 'low', status: 'in_progress' },
      ],
    });
    expect(e).toEqual([
      { type: 'tool-use', id: 'thought-1', name: 'Reasoning', input: { summary: 'Plan first, then act' } },
      { type: 'tool-result', toolUseId: 'thought-1', isError: false, excerpt: '**Plan** first, then act' },
      {
        type: 'tool-use',
        id: 'plan-1',
        name: 'TodoWrite',
        input: {
          todos: [
            { content: 'Read', status: 'completed' },
            { content: 'Write', status: 'in_progress' },
          ],
        },
      },
      { type: 'tool-result', toolUseId: 'plan-1', isError: false, excerpt: '☑ Read\n▶ Write' },
    ]);
  });

  it('keeps the cumulative cost in USD only, and bounds a long output', () => {
    const m = new UpdateMapper();
    m.map({ sessionUpdate: 'usage_update', used: 1, size: 2, cost: { amount: 3, currency: 'credits' } });
    expect(m.costUsd).toBeUndefined();
    m.map({ sessionUpdate: 'usage_update', used: 1, size: 2, cost: { amount: 0.25, currency: 'USD' } });
    expect(m.costUsd).toBe(0.25);
    const out = m.map({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'x',
      status: 'completed',
      rawOutput: 'y'.repeat(9000),
    });
    const result = out.find((e) => e.type === 'tool-result') as { excerpt: string };
    expect(result.excerpt).toHaveLength(TOOL_EXCERPT_CHARS + 1);
  });

  it('ignores what is not a turn event', () => {
    const m = new UpdateMapper();
    for (const u of [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'echo' } },
      { sessionUpdate: 'available_commands_update', availableCommands: [] },
      { sessionUpdate: 'current_mode_update', currentModeId: 'plan' },
      { sessionUpdate: 'session_info_update', title: 't' },
    ])
      expect(m.map(u)).toEqual([]);
  });

  it('never throws, whatever arrives', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (a, b) => {
        const m = new UpdateMapper();
        m.map(a);
        m.map({ sessionUpdate: 'tool_call_update', ...(typeof b === 'object' ? b : {}) });
        m.map({ sessionUpdate: 'plan', entries: b });
        m.describeTool(b);
        m.finish();
      }),
    );
  });
});

describe('shellCommand', () => {
  it('unwraps a shell -c wrapper and keeps anything else as it is', () => {
    expect(shellCommand(['/bin/bash', '-lc', 'ls -la'])).toBe('ls -la');
    expect(shellCommand(['sh', '-c', 'x'])).toBe('x');
    expect(shellCommand(['git', 'status'])).toBe('git status');
    expect(shellCommand('make')).toBe('make');
    expect(shellCommand(42)).toBeUndefined();
  });
});
