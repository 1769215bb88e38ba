/**
 * Mock Messages API scripts for the captures that need more than the default directives:
 * each runs a fixed sequence of tool calls once the user text carries its trigger.
 */
import type { Script } from './mock-anthropic.js';

/** Plan mode: write the plan file named in the system prompt, load ExitPlanMode, call it. */
export function planExitScript(): Script {
  let step = 0;
  return (req) => {
    if (req.side || (!req.lastUserText.includes('[[plan-exit]]') && !req.afterTool)) return undefined;
    const planFile = /create your plan at (\S+?\.md)/.exec(JSON.stringify(req.body))?.[1] ?? '/tmp/rudder-plan.md';
    step++;
    if (step === 1)
      return {
        kind: 'tool',
        name: 'Write',
        input: { file_path: planFile, content: '# Plan\n\n1. Read the parser\n2. Fix the tail window\n' },
      };
    if (step === 2) return { kind: 'tool', name: 'ToolSearch', input: { query: 'select:ExitPlanMode' } };
    if (step === 3) return { kind: 'tool', name: 'ExitPlanMode', input: {} };
    return { kind: 'text', text: 'plan accepted' };
  };
}

/** Load AskUserQuestion, then ask one multi-select question (2.1.332 draws `❯ 1. [ ] Parser`). */
export function askQuestionScript(): Script {
  let step = 0;
  return (req) => {
    if (req.side || (!req.lastUserText.includes('[[ask]]') && !req.afterTool)) return undefined;
    step++;
    if (step === 1) return { kind: 'tool', name: 'ToolSearch', input: { query: 'select:AskUserQuestion' } };
    if (step === 2) {
      const options = [
        { label: 'Parser', description: 'the line parser' },
        { label: 'Tests', description: 'the unit tests' },
      ];
      return {
        kind: 'tool',
        name: 'AskUserQuestion',
        input: {
          questions: [{ question: 'Which parts should I change?', header: 'Scope', multiSelect: true, options }],
        },
      };
    }
    return { kind: 'text', text: 'thanks' };
  };
}
