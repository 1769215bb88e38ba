/**
 * What a GitHub event means to the pull-request shepherd: a PR that a conversation's branch opened (its owner from
 * now on) or closed, a message for the conversation that owns a PR or branch (a failed check, a review, a
 * comment), or nothing, with the reason for the log. Rudder only reads: it never pushes on a hook's behalf.
 */

import type { ShepherdEventName } from '../../config/hooks-schema.js';

export { SHEPHERD_EVENTS, type ShepherdEventName } from '../../config/hooks-schema.js';

/** Which conversation an event is for: the PR's, else its branch's (owners are per project, so per repository). */
export interface PrTarget {
  /** owner/name */
  repository: string;
  /** The PR's head branch, when the payload names it (an issue comment does not). */
  branch?: string;
  /** The PRs the event is about: one, or for a check several, or none (a branch pushed before its PR). */
  prs: number[];
}

export type ShepherdEvent =
  /** A PR opened (or reopened) from a branch of the same repository: its branch's conversation owns it now. */
  | { kind: 'pr-opened'; target: PrTarget & { branch: string }; pr: number; text: string }
  /** The PR closed or merged: its owner is told, and ownership ends. */
  | { kind: 'pr-closed'; target: PrTarget; pr: number; merged: boolean; text: string }
  | { kind: 'message'; about: 'check' | 'review' | 'comment'; target: PrTarget; text: string }
  | { kind: 'ignore'; why: string };

export interface ShepherdOptions {
  /** The events this hook takes (default: all of SHEPHERD_EVENTS). */
  events?: readonly ShepherdEventName[];
  /** Logins whose comments and reviews are ignored: the account the agent's own comments are made with. */
  ignoreUsers?: readonly string[];
}

/** Bounds on the untrusted text quoted into a message. */
export const MAX_SUMMARY_CHARS = 1_500;
export const MAX_COMMENT_CHARS = 4_000;

export const ignore = (why: string): ShepherdEvent => ({ kind: 'ignore', why });
