/**
 * A scenario's view of one rig: every action it takes is written down as a step, so each
 * capture carries the exact steps that produced it, and its verdict comes from those steps.
 */

import type { PaneInfo } from '../../src/agents/tmux/pane/tmux.js';
import type { PaneVerdict } from '../../src/agents/tmux/screen/pane-state.js';
import type { MockRequest, Script } from './mock-anthropic.js';
import { type Rig, type RigOptions, SHELL_PROMPT, sleep } from './tui-rig.js';

export interface Shot {
  /** The state the steps produced, e.g. "trust-dialog"; the first half of the file name. */
  state: string;
  /** How it was produced, as a slug; the second half of the file name. */
  how: string;
  /** The verdict that follows from the steps (not from any classifier). */
  expected: PaneVerdict;
  why: string;
  steps: string[];
  /** A check made right after the capture that backs the verdict up, e.g. a probe that arrived. */
  verified: string;
  text: string;
  ansi: string;
  info: PaneInfo;
  capturedAtMs: number;
}

export interface RigSetup extends Pick<RigOptions, 'args' | 'seed' | 'auth' | 'viaShell'> {
  /** A fresh mock script per run: scripts count their steps. */
  makeScript?: () => Script;
}

export interface Scenario {
  id: string;
  setup: RigSetup;
  /** Sizes this scenario runs at; default both. */
  sizes?: Array<[number, number]>;
  run(s: ShotContext): Promise<void>;
}

let probeCounter = 0;

export class ShotContext {
  readonly steps: string[] = [];
  readonly shots: Shot[] = [];

  constructor(
    readonly rig: Rig,
    startStep: string,
  ) {
    this.steps.push(startStep);
  }

  private since = () => `t+${((Date.now() - this.rig.startedAt) / 1000).toFixed(1)}s`;

  async waitFor(needle: string, timeoutMs = 30_000): Promise<void> {
    await this.rig.waitFor((t) => t.includes(needle), JSON.stringify(needle), timeoutMs);
    this.steps.push(`wait until the pane shows ${JSON.stringify(needle)} (${this.since()})`);
  }

  async waitForRequest(pred: (r: MockRequest) => boolean, what: string): Promise<MockRequest> {
    const req = await this.rig.mock.waitFor(pred, 30_000);
    this.steps.push(`wait until the mock API receives ${what} (${this.since()})`);
    return req;
  }

  async settle(ms: number): Promise<void> {
    await sleep(ms);
    this.steps.push(`wait ${ms / 1000} s`);
  }

  async type(text: string): Promise<void> {
    await this.rig.type(text);
    this.steps.push(`type ${JSON.stringify(text)} (send-keys -l)`);
  }

  async keys(...keys: string[]): Promise<void> {
    await this.rig.keys(...keys);
    this.steps.push(`press ${keys.join(' ')}`);
  }

  /** Types a message and submits it after the ~0.5 s settle the TUI needs. */
  async send(text: string): Promise<void> {
    await this.type(text);
    await this.settle(500);
    await this.keys('Enter');
  }

  /** In a viaShell rig: types the claude command line (plus `extra`) into the pane's bash and presses Enter. */
  async startFromShell(extra = ''): Promise<void> {
    await this.rig.waitFor((t) => t.includes(SHELL_PROMPT.trim()), 'the shell prompt', 15_000);
    await this.rig.type(`${this.rig.command}${extra}`);
    await this.rig.keys('Enter');
    this.steps.push(`type the claude command line${extra ? ` + ${JSON.stringify(extra)}` : ''} into bash, press Enter`);
  }

  note(step: string): void {
    this.steps.push(step);
  }

  async shot(
    state: string,
    how: string,
    expected: PaneVerdict,
    why: string,
    verify?: () => Promise<string>,
  ): Promise<Shot> {
    const capturedAtMs = Date.now();
    const text = await this.rig.text();
    const ansi = await this.rig.ansi();
    const info = await this.rig.info();
    const steps = [...this.steps, `capture-pane -p, then capture-pane -p -e (${this.since()})`];
    const verified = verify ? await verify() : 'none';
    const shot: Shot = { state, how, expected, why, steps, verified, text, ansi, info, capturedAtMs };
    this.shots.push(shot);
    this.steps.push(`(captured ${state})`);
    return shot;
  }

  /** Backs a `ready` verdict: a probe typed right after the capture must reach the mock API. */
  probeArrives = async (): Promise<string> => {
    const tag = `probe${++probeCounter}x${Date.now().toString(36)}`;
    await this.rig.type(`probe tag:${tag}`);
    await sleep(500);
    await this.rig.keys('Enter');
    await this.rig.mock.waitFor((r) => !r.side && r.lastUserText.includes(`tag:${tag}`), 15_000);
    this.steps.push(`(probe "probe tag:${tag}" + Enter typed after the capture reached the mock API)`);
    return 'a probe message typed + Enter right after the capture reached the mock API';
  };

  /** Backs a `not-ready` verdict on a drawn screen: a probe typed right after the capture must NOT arrive. */
  probeIsLost = async (): Promise<string> => {
    const tag = `probe${++probeCounter}x${Date.now().toString(36)}`;
    await this.rig.type(`probe tag:${tag}`);
    await sleep(500);
    await this.rig.keys('Enter');
    await sleep(4000);
    if (this.rig.mock.requests.some((r) => r.lastUserText.includes(`tag:${tag}`)))
      throw new Error(`${this.rig.name}: the probe arrived`);
    this.steps.push(`(probe "probe tag:${tag}" + Enter typed after the capture did not reach the mock API within 4 s)`);
    return 'a probe message typed + Enter right after the capture did not reach the mock API within 4 s';
  };
}
