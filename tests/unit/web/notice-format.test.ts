/** How a command's answer is laid out on the page (web/src/notice-format.ts). */
import { describe, expect, it } from 'vitest';
import { noticeBlocks } from '../../../web/src/notice-format.js';

describe('command answers', () => {
  it('lays "Key: value" runs out as a table, lists as monospace lines, the rest as text', () => {
    const status = ['Session: abc (claude-stream, idle)', 'Model: the CLI default', 'Queue mode: steer; waiting: 0'];
    expect(noticeBlocks(status.join('\n'))).toEqual([
      {
        kind: 'pairs',
        rows: [
          ['Session', 'abc (claude-stream, idle)'],
          ['Model', 'the CLI default'],
          ['Queue mode', 'steer; waiting: 0'],
        ],
      },
    ]);
    const project = [
      "Projects (→ this conversation's):",
      '→ site — /srv/site',
      '  api — /srv/api (default)',
      'Send /x.',
    ];
    expect(noticeBlocks(project.join('\n'))).toEqual([
      { kind: 'text', text: "Projects (→ this conversation's):" },
      { kind: 'lines', lines: ['→ site — /srv/site', '  api — /srv/api (default)'] },
      { kind: 'text', text: 'Send /x.' },
    ]);
    // One "Key: value" line alone is a sentence.
    expect(noticeBlocks('Note: this is all.')).toEqual([{ kind: 'text', text: 'Note: this is all.' }]);
  });
});
