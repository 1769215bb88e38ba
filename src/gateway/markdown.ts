/** Small Markdown pieces the gateway composes for every chat (cards, permission prompts). */

/** One line, at most n characters, with an ellipsis when cut. */
export function oneLine(text: string, n: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= n ? flat : `${chars.slice(0, n - 1).join('')}…`;
}

/** An inline code span that holds any text: its fence is longer than every backtick run inside. */
export function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}
