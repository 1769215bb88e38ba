/**
 * Which conversation a command means: named by its id or the start of its title (case-insensitive, one match),
 * or picked from a numbered list in a terminal when none is named (node:readline: no prompt library needed).
 */
import readline from 'node:readline/promises';
import type { ConversationItem } from '../http/wire.js';

/** How many of the newest conversations the picker lists. */
const LISTED = 20;

export type Picked = { item: ConversationItem } | { problem: string; exitCode: number };

const name = (c: ConversationItem) => `${c.id}${c.title ? ` · ${c.title}` : ''} (${c.project})`;

/** The conversation an argument names: its id, else the one whose title starts with it. */
export function named(list: ConversationItem[], arg: string): Picked {
  const byId = list.find((c) => c.id === arg);
  if (byId) return { item: byId };
  const prefix = arg.toLowerCase();
  const byTitle = list.filter((c) => c.title?.toLowerCase().startsWith(prefix));
  if (byTitle.length === 1) return { item: byTitle[0]! };
  if (byTitle.length > 1) {
    const lines = byTitle.map((c) => `  ${name(c)}`).join('\n');
    return { problem: `"${arg}" starts ${byTitle.length} titles:\n${lines}\nName one by its id.`, exitCode: 2 };
  }
  return { problem: `No conversation has the id "${arg}" or a title starting with it.`, exitCode: 1 };
}

/** The newest conversations numbered, and the person's choice; without a terminal, the list and how to name one. */
export async function pick(list: ConversationItem[], command: string): Promise<Picked> {
  if (!list.length) return { problem: 'There are no conversations yet.', exitCode: 1 };
  const shown = list.slice(0, LISTED);
  const lines = shown.map((c, i) => `${String(i + 1).padStart(2)}. ${name(c)}`).join('\n');
  if (!process.stdin.isTTY)
    return { problem: `${lines}\nName one: ${command} <conversation id or title>.`, exitCode: 2 };
  process.stderr.write(`${lines}\n`);
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question('Which one (number)? ')).trim();
    const item = /^\d+$/.test(answer) ? shown[Number(answer) - 1] : undefined;
    return item ? { item } : named(shown, answer);
  } finally {
    rl.close();
  }
}
