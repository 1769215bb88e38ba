/**
 * The past sessions an agent keeps itself and lists when asked, for /sessions and /resume (Codex's
 * threads: thread/list on its app-server). An agent table entry has one when its agent can be asked;
 * Claude Code's sessions are files Rudder reads instead (projects/sessions.ts).
 */
import type { AgentConfig } from '../config/schema.js';

/** One past session as the agent lists it. */
export interface PastSession {
  id: string;
  /** Its last change, epoch ms. */
  updatedAt: number;
  /** What it began with, as the agent shows it (the first message, or the title it was given). */
  preview?: string;
}

export interface SessionHistory {
  /** What the list is called for a person: "Codex threads". */
  readonly noun: string;
  /** The sessions that worked in one of these directories, most recently used first. */
  list(cwds: string[], limit: number): Promise<PastSession[]>;
  /** Whether session `id` is one of these directories'. */
  has(cwds: string[], id: string): Promise<boolean>;
}

/** What asking an agent for its sessions needs: its settings and the environment Rudder runs in. */
export interface HistoryContext {
  agent: AgentConfig;
  env: NodeJS.ProcessEnv;
}
