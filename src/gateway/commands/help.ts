/** The commands, as /help lists them. */
export const HELP = [
  'Commands:',
  '/stop (or just "stop") — stop the running turn and clear the queue; the session is kept',
  '/clear or /new — end the session and start a fresh one',
  '/model <name> — switch model (from the next turn)',
  '/queue [steer|followup|collect|interrupt] — show or set how messages sent mid-turn are handled',
  '/status — what this conversation is doing',
  '/retry — run messages held by a rate limit now',
  '/allow, /deny — answer a pending permission request (or reply with its option number)',
  '/project [name] — list the projects, or move this conversation to one',
  '/sessions — the Claude Code sessions of this project, also those started in a terminal',
  '/resume <n|id> [--force] — continue one of them here from the next message',
  "/worktree [remove [--force]] — this conversation's git worktree: its status, or remove it",
  '/nodes — the machines behind this Rudder: their state, projects and live sessions',
  '/help — this list',
].join('\n');
