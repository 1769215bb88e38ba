/** What every channel does the same with a progress card or a permission prompt before its own formatting. */
import type { CardView, PromptView } from '../channel.js';

/** The card as Markdown, for a channel's converter. */
export function cardMarkdown(card: CardView): string {
  return [card.header, ...card.lines].join('\n');
}

/** Room kept on a prompt's last part for the outcome line added when it is settled. */
const OUTCOME_ROOM = 200;

/**
 * A prompt as the rendered parts a platform shows, every part within `limit`: the whole text,
 * split as it must be, and once settled the outcome on the last part (where the buttons were).
 * `fit` splits and renders Markdown (common/split.ts fitParts with the platform's converter).
 */
export function promptParts(
  prompt: PromptView,
  limit: number,
  fit: (markdown: string, limit: number) => string[],
): string[] {
  const parts = fit(prompt.text, limit - OUTCOME_ROOM);
  if (prompt.outcome)
    parts[parts.length - 1] = `${parts[parts.length - 1] ?? ''}\n\n${fit(prompt.outcome, OUTCOME_ROOM).join(' ')}`;
  return parts;
}
