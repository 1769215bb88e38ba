/**
 * What a TUI session needs of the pane it drives, whoever owns it: Rudder's own pane (pane-host.ts:
 * spawned, respawned with --resume, killed when the session stops) or a person's pane it is attached
 * to (attach/borrowed-pane.ts: found by its tmux id, never started, killed, sent C-c or resized).
 */
import type { PermissionMode } from '../../claude/args.js';
import type { SessionLaunch } from '../../common/session-base.js';
import type { TranscriptEntry } from '../transcript/transcript-entries.js';
import type { Pane, PaneLook } from './pane.js';

export interface PaneHostHooks {
  /** New transcript entries, in order. */
  entries(entries: TranscriptEntry[]): void;
  /** A fresh look at the pane while work is in flight. */
  looked(look: PaneLook): void;
  /** The pane's program died on its own (not stopped by Rudder); screen: its last frame. */
  died(detail: string, screen: string): void;
  /** Work is in flight: poll fast and look at the pane. */
  busy(): boolean;
}

export interface TuiHost {
  /** The pane as logs and errors name it. */
  readonly name: string;
  readonly pane: Pane | undefined;
  readonly live: boolean;
  readonly dead: boolean;
  readonly pid: number | undefined;
  readonly sid: string | undefined;
  /**
   * A person types in this pane too: Rudder types only into an empty box, never empties one that
   * holds text it did not type, and waits (saying so) while someone is typing.
   */
  readonly shared: boolean;
  /** Runs fn while holding the pane: one typist at a time. */
  withPane<T>(fn: () => Promise<T>): Promise<T>;
  /** A live pane at an input box (an owned pane is started when there is none). */
  ensureLive(context: Record<string, unknown>): Promise<void>;
  /** Why the last start began a new session instead of resuming, once. */
  takeNewSessionNote(): { message: string; notify: boolean } | undefined;
  readTranscript(): void;
  startPolling(): void;
  /** Persists the session id once its transcript exists. */
  persistSessionId(force?: boolean): void;
  /**
   * An interrupt's Escapes left the pane busy: an owned pane's program is stopped (the next turn
   * resumes); a borrowed one is never touched, and false says the turn goes on.
   */
  lastResort(reason: string): Promise<boolean>;
}

/** What typing, arrival and menus need of a TUI session's settings. */
export interface TuiSettings {
  /** Messages longer than this (UTF-8 bytes) are saved to a file and a reference is typed. */
  pasteFileThresholdBytes: number;
  /** Where those files go. */
  messageDir: string;
  /** How long a message waits for the pane to accept input before the person is told. */
  readyTimeoutMs: number;
  /** Extra Enter presses when a typed message does not show up in the transcript. */
  arrivalRetries: number;
  /** How long each delivery attempt waits for the transcript. */
  arrivalTimeoutMs: number;
  /** Tool uses approved without asking. */
  autoAllow: string[];
}

/** A TUI session's launch, whoever owns the pane. */
export interface TuiLaunch extends SessionLaunch {
  /** Which menu options are offered (relay and manual: none that stop the asking). */
  permissionMode: PermissionMode;
  tmux: TuiSettings;
}
