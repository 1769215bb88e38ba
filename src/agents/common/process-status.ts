/**
 * An agent process that conversations share (Codex's app-servers, the ACP agents), as the status
 * report shows it: plain data, no imports (the web app reads the report's types).
 */
export interface SharedProcessStatus {
  pid: number;
  /** The agent, as people read it: "Codex", "Gemini". */
  agent: string;
  /** How many conversations lease it. */
  conversations: number;
  /** How many agent sessions (threads) it holds. */
  sessions: number;
  /** The last lines it wrote to stderr. */
  stderrTail: string[];
}
