/** What the agent is asked when the person wants it to propose a commit message (sent through intake). */
export const PROPOSE_COMMIT_TEXT = [
  'Propose a commit message for the uncommitted changes in your working directory (git status, git diff HEAD ' +
    'and the new files).',
  'A first line of at most 72 characters that says what the change does, then a blank line and, when it is not ' +
    'obvious, why.',
  'Reply with the message alone in one ```text block. Do not commit it yourself.',
].join('\n');
