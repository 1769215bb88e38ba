/** The Claude CLI's command lines (agents/claude/args.ts): the mandatory flags, permission modes, no prompt in argv. */
import { describe, expect, it } from 'vitest';
import { oneShotArgs, streamArgs } from '../../../../src/agents/claude/args.js';

describe('CLI arguments', () => {
  it('builds the persistent command line with the mandatory flags', () => {
    const args = streamArgs({ permissionMode: 'relay', model: 'sonnet', appendSystemPrompt: 'Be brief.' }, 'sid-1');
    expect(args.slice(0, 8)).toEqual([
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--replay-user-messages',
      '--include-partial-messages',
    ]);
    expect(args).toEqual(
      expect.arrayContaining(['--resume', 'sid-1', '--model', 'sonnet', '--permission-prompt-tool', 'stdio']),
    );
    const prompt = args[args.indexOf('--append-system-prompt') + 1]!;
    expect(prompt).toContain('EXTERNAL_USER_MESSAGE');
    expect(prompt.endsWith('Be brief.')).toBe(true);
  });

  it('maps permission modes to the CLI flags', () => {
    expect(streamArgs({ permissionMode: 'bypassPermissions' }, undefined)).toContain('--dangerously-skip-permissions');
    const plan = streamArgs({ permissionMode: 'plan' }, undefined);
    expect(plan[plan.indexOf('--permission-mode') + 1]).toBe('plan');
    expect(streamArgs({ permissionMode: 'plan' }, undefined)).not.toContain('--resume');
  });

  it('keeps the one-shot prompt out of argv (it goes to stdin)', () => {
    const args = oneShotArgs({ permissionMode: 'manual' }, 'sid');
    expect(args.slice(0, 3)).toEqual(['-p', '--input-format', 'text']);
    expect(args).not.toContain('--');
  });
});
