/** /diff's chat rendering, from change sets of real repositories. */
import { describe, expect, it } from 'vitest';
import { changes, fileDiff } from '../../../../src/projects/changes/changes.js';
import { diffText, renderChatDiff, withFullDiffs } from '../../../../src/projects/changes/chat-diff.js';
import { A_TXT, commitAll, projectRepo, runner, worktree, write } from '../../../support/review-rig.js';

const run = runner();

async function edited() {
  const repo = projectRepo();
  const wt = worktree(repo);
  write(wt.path, 'a.txt', A_TXT.replace('alpha', 'ALPHA').replace('theta', 'THETA'));
  write(wt.path, 'b.txt', 'one\nthree\n');
  commitAll(wt.path, 'agent edits');
  write(wt.path, 'src/new.ts', Array.from({ length: 12 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n');
  return { repo, wt };
}

describe('/diff in a chat', () => {
  it('lists the files with +/− counts and the first lines of each hunk, in one message when it fits', async () => {
    const { wt } = await edited();
    const set = await changes(run, wt.path, 'main');
    const out = renderChatDiff(set, { limit: 4096, hunkLines: 3 });
    expect(out.kind).toBe('messages');
    if (out.kind !== 'messages') throw new Error('unreachable');
    expect(out.messages).toHaveLength(1);
    const text = out.messages[0]!;
    expect(text.split('\n').slice(0, 2)).toEqual([
      `${wt.branch} → main · 1 ahead, 0 behind`,
      '3 files changed · +14 −3',
    ]);
    expect(text).toContain(
      'Committed (2 files, 1 commit):\nM a.txt +2 −2\n@@ -1,8 +1,8 @@\n-alpha\n+ALPHA\n beta\n… 7 more lines',
    );
    expect(text).toContain('M b.txt −1\n@@ -1,3 +1,2 @@\n one\n-two\n three');
    expect(text).toContain(
      'New files, not committed (1 file):\nA src/new.ts +12\n@@ -0,0 +1,12 @@\n+export const v0 = 0;',
    );
    expect(text).toContain('… 9 more lines');
    expect(text).not.toContain('v5');
  });

  it('splits within the limit at file boundaries, never leaving a section title at the end of a message', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    for (let i = 0; i < 12; i++) write(wt.path, `file-${i}.txt`, `line one of ${i}\nline two\n`);
    commitAll(wt.path, 'twelve files');
    write(wt.path, 'a.txt', 'rewritten\n');
    const set = await changes(run, wt.path, 'main');
    const out = renderChatDiff(set, { limit: 300, maxMessages: 10 });
    if (out.kind !== 'messages') throw new Error(`expected messages, got ${out.kind}`);
    expect(out.messages.length).toBeGreaterThan(2);
    for (const m of out.messages) {
      expect(m.length).toBeLessThanOrEqual(300);
      expect(m).not.toMatch(/:\s*$/);
    }
    const all = out.messages.join('\n');
    const order = [...all.matchAll(/^A (file-\d+)\.txt/gm)].map((m) => m[1]);
    expect(order).toEqual([0, 1, 10, 11, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `file-${i}`));
    expect(all).toContain('Not staged (1 file):\nM a.txt +1 −8');
  });

  it('sends a summary and a .diff text when it would take too many messages', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    for (let i = 0; i < 40; i++) write(wt.path, `f${i}.txt`, `${'content '.repeat(10)}\n`.repeat(6));
    commitAll(wt.path, 'forty files');
    const set = await changes(run, wt.path, 'main');
    const out = renderChatDiff(set, { limit: 500, maxMessages: 3 });
    if (out.kind !== 'file') throw new Error(`expected a file, got ${out.kind}`);
    expect(out.summary.length).toBeLessThanOrEqual(500);
    expect(out.summary).toMatch(/… and \d+ more lines; the whole diff is in the file\.$/);
    expect(out.file.name).toBe(`${wt.branch.replace(/\//g, '-')}.diff`);
    expect(out.file.text).toBe(diffText(set));
    expect(out.file.text.match(/^diff --git /gm)).toHaveLength(40);
    expect(out.file.text.startsWith('# Committed (40 files, 1 commit):\n')).toBe(true);
  });

  it('fences hunks for Markdown chats, and keeps control and invisible characters out of the text', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'evil.txt', 'red \u001b[31malert\u001b[0m and zero\u200bwidth\n');
    const set = await changes(run, wt.path, 'main');
    const out = renderChatDiff(set, { limit: 4096, fence: true });
    if (out.kind !== 'messages') throw new Error('unreachable');
    const text = out.messages.join('\n');
    expect(text).toContain('A evil.txt +1\n```diff\n@@ -0,0 +1 @@\n+red alert and zerowidth\n```');
    expect(text).not.toMatch(/[\u001b\u200b]/);
  });

  it('says when there is nothing, and fills collapsed diffs for the .diff file on request', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    expect(renderChatDiff(await changes(run, wt.path, 'main'), { limit: 4096 })).toEqual({
      kind: 'messages',
      messages: [`${wt.branch} → main · 0 ahead, 0 behind\n0 files changed · +0 −0\nNo changes.`],
    });
    write(wt.path, 'big.txt', Array.from({ length: 50 }, (_, i) => `row ${i}`).join('\n') + '\n');
    commitAll(wt.path, 'big');
    const set = await changes(run, wt.path, 'main', { limits: { maxFileLines: 10 } });
    const big = set.sections.committed.files[0]!;
    expect(big.collapsed?.reason).toBe('lines');
    expect(diffText(set)).toContain('# A big.txt +50 · diff not shown (large)');
    const full = await withFullDiffs(set, (f) => fileDiff(run, wt.path, f, 'main'), 1 << 20);
    expect(full.sections.committed.files[0]!.collapsed).toBeUndefined();
    expect(diffText(full)).toContain('+row 49\n');
  });
});
