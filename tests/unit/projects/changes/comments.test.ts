/** Line comments made into one message, the code quoted from a real diff by its line numbers. */
import { describe, expect, it } from 'vitest';
import { changes } from '../../../../src/projects/changes/changes.js';
import { commentsMessage, type LineComment, quoteLines } from '../../../../src/projects/changes/comments.js';
import { A_TXT, projectRepo, runner, worktree, write } from '../../../support/review-rig.js';

describe('line comments', () => {
  it('quote the lines they point at from the diff, on either side, and say when a line is gone', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', A_TXT.replace('gamma', 'GAMMA').replace('theta\n', 'theta\nnew line\n'));
    const set = await changes(runner(), wt.path, 'main');
    const a = set.sections.unstaged.files[0]!;
    expect(quoteLines(a.diff!, 'new', 3)).toEqual(['+GAMMA']);
    expect(quoteLines(a.diff!, 'old', 3)).toEqual(['-gamma']);
    expect(quoteLines(a.diff!, 'new', 8, 9)).toEqual([' theta', '+new line']);
    expect(quoteLines(a.diff!, 'new', 40)).toBeUndefined();
    const comments: LineComment[] = [
      { path: 'a.txt', section: 'unstaged', side: 'new', line: 3, text: 'Keep it lowercase.' },
      { path: 'a.txt', section: 'unstaged', side: 'new', line: 8, endLine: 9, text: '  Why this line?  ' },
      { path: 'gone.txt', section: 'unstaged', side: 'new', line: 1, text: 'And this?' },
    ];
    const diffOf = (c: LineComment) => set.sections[c.section].files.find((f) => f.path === c.path)?.diff;
    expect(commentsMessage(comments, diffOf)).toBe(
      [
        'Review comments on your changes (3 comments):',
        '1. a.txt, line 3\n> +GAMMA\nKeep it lowercase.',
        '2. a.txt, lines 8–9\n>  theta\n> +new line\nWhy this line?',
        '3. gone.txt, line 1\n(that line is no longer in the diff)\nAnd this?',
      ].join('\n\n'),
    );
  });
});
