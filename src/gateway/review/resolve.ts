/** What the agent is asked when a merge of its branch stopped on a conflict (sent through intake, like any message). */

/** A fenced block that holds any text: its fence is longer than every backtick run inside. */
function fenced(lang: string, text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text.replace(/\n$/, '')}\n${fence}`;
}

export function resolveConflictText(o: {
  branch: string;
  base: string;
  files: string[];
  /** What the base changed in those files since the branch left it (git diff <branch>...<base>). */
  diff: string;
  cut: boolean;
}): string {
  const { branch, base } = o;
  const change = o.diff.trim()
    ? [
        `What ${base} changed in ${o.files.length === 1 ? 'it' : 'them'} since your branch left it ` +
          `(git diff ${branch}...${base}${o.cut ? ', cut here: run it for the rest' : ''}):`,
        fenced('diff', o.diff),
      ]
    : [];
  return [
    `Merging your branch ${branch} into ${base} stopped on a conflict in ` +
      `${o.files.length === 1 ? 'this file' : 'these files'}; nothing was changed:`,
    ...o.files.map((f) => `- ${f}`),
    ...change,
    `Merge ${base} into ${branch} and resolve the conflict, keeping what both sides meant; run the tests, then ` +
      `commit the merge. Say what you kept from each side. I will merge into ${base} again after.`,
  ].join('\n');
}
