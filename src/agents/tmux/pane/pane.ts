/**
 * One Claude Code pane: its tmux session name on one server, what it shows now (text, tmux facts,
 * the classifier's verdict), and the keys it can be sent. Every read is fresh: a decision to type
 * is never made on a capture older than the call that makes it.
 */
import { classifyPaneDetailed, type PaneVerdict } from '../screen/pane-state.js';
import type { PaneInfo, Tmux } from './tmux.js';

export interface PaneLook {
  text: string;
  info: PaneInfo;
  verdict: PaneVerdict;
  reasons: string[];
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class Pane {
  constructor(
    readonly tmux: Tmux,
    readonly name: string,
  ) {}

  /** The pane now; a dead pane is `not-ready` whatever its last frame shows. */
  async look(): Promise<PaneLook> {
    const { info, text } = await this.tmux.look(this.name);
    const c = classifyPaneDetailed(text, { paneDead: info.dead, foreground: info.command });
    return { text, info, verdict: c.state, reasons: c.reasons };
  }

  /** The capture with SGR attributes, to tell placeholder text from typed text. */
  ansi(): Promise<string> {
    return this.tmux.capturePane(this.name, { escapes: true });
  }

  keys(...keys: string[]): Promise<void> {
    return this.tmux.sendKeys(this.name, ...keys);
  }

  /** Polls until pred holds on a fresh look; undefined when the deadline passes first. */
  async waitFor(pred: (l: PaneLook) => boolean, timeoutMs: number, stepMs = 150): Promise<PaneLook | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const l = await this.look();
      if (pred(l)) return l;
      if (Date.now() >= deadline) return undefined;
      await sleep(stepMs);
    }
  }
}
