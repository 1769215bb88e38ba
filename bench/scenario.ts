/**
 * The agent's work in the benchmarks, scripted on the mock Messages API: a message carrying
 * `bench-run:TAG steps=N` makes the model run N Bash steps, one per model call, then answer.
 * Each step writes its start and end time (the tool's own clock) to a marker file, so the
 * benchmark knows when a step ran without asking Rudder. A message carrying `[c:TAG]` is the
 * person's correction: once the model sees it, it answers at once ("corrected"), as a model that
 * is told to change course would stop the plan it was on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../tests/support/claude-rig.js';
import type { MockReply, MockRequest } from '../tests/support/mock-anthropic.js';
import { sleep } from './stats.js';

export const STEP_SECONDS = 2;

export interface StepTimes {
  start: number;
  end?: number;
}

export class Scenario {
  readonly marks = tempDir('bench-marks');

  /** The text that starts a run of `steps` steps. */
  run(tag: string, steps: number): string {
    return `work through the plan bench-run:${tag}; steps=${steps}`;
  }

  /** The correction for a run (found in the request by its mark). */
  correction(tag: string): string {
    return `actually, change of plan [c:${tag}]`;
  }

  readonly script = (req: MockRequest): MockReply | undefined => {
    if (req.side) return undefined;
    const messages: any[] = req.body.messages ?? [];
    const text = (m: any) => (typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? ''));
    let start = -1;
    for (const [i, m] of messages.entries()) if (m?.role === 'user' && text(m).includes('bench-run:')) start = i;
    if (start < 0) return undefined;
    const first = text(messages[start]);
    const tag = /bench-run:([\w-]+)/.exec(first)![1]!;
    const steps = Number(/steps=(\d+)/.exec(first)?.[1] ?? 0);
    const later = messages.slice(start).filter((m) => m?.role === 'user');
    if (later.some((m) => text(m).includes(`[c:${tag}]`))) return { kind: 'text', text: 'corrected' };
    const done = later.reduce(
      (n, m) => n + (Array.isArray(m?.content) ? m.content.filter((b: any) => b?.type === 'tool_result').length : 0),
      0,
    );
    if (done >= steps) return { kind: 'text', text: `done ${tag}` };
    const file = this.file(tag, done + 1);
    return {
      kind: 'tool',
      name: 'Bash',
      input: {
        command:
          `echo start:$(date +%s%3N) > ${file}; sleep ${STEP_SECONDS}; echo end:$(date +%s%3N) ` +
          `>> ${file}; echo step ${done + 1} done`,
        description: `step ${done + 1}`,
      },
    };
  };

  private file(tag: string, step: number): string {
    return path.join(this.marks, `${tag}-${step}`);
  }

  /** The times a step printed (start, and end once it ended), if it ran. */
  step(tag: string, step: number): StepTimes | undefined {
    let body: string;
    try {
      body = fs.readFileSync(this.file(tag, step), 'utf8');
    } catch {
      return undefined;
    }
    const start = /start:(\d+)/.exec(body);
    if (!start) return undefined;
    const end = /end:(\d+)/.exec(body);
    return { start: Number(start[1]), end: end ? Number(end[1]) : undefined };
  }

  steps(tag: string, count: number): StepTimes[] {
    return Array.from({ length: count }, (_, i) => this.step(tag, i + 1)).filter((s): s is StepTimes => !!s);
  }

  /** Waits for a step to start (polled every 5 ms: the tool cannot tell anyone sooner). */
  async started(tag: string, step: number, timeoutMs = 60_000): Promise<number> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const s = this.step(tag, step);
      if (s) return s.start;
      await sleep(5);
    }
    throw new Error(`step ${step} of ${tag} did not start within ${timeoutMs} ms`);
  }

  dispose(): void {
    fs.rmSync(this.marks, { recursive: true, force: true });
  }
}

/** Tool calls that ran after `from` and before `to`: those still running at `from` or started before `to`. */
export function toolsBetween(steps: StepTimes[], from: number, to: number): number {
  return steps.filter((s) => s.start < to && (s.end === undefined || s.end > from)).length;
}
