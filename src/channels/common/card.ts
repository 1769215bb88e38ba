/** What every channel does the same with a progress card or a permission prompt before its own formatting. */
import type { CardView, MessageRef, PromptView } from '../channel.js';
import type { ChannelLink } from '../runtime/adapter.js';

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

/**
 * Posts a prompt's parts in the chat's order, one after another, the buttons going on the `last`; resolves
 * with the last one's handle, the message the prompt is settled on.
 */
export function postParts(
  link: Pick<ChannelLink, 'inOrder'>,
  to: MessageRef,
  parts: string[],
  post: (part: string, index: number, last: boolean) => Promise<string>,
): Promise<string> {
  return link.inOrder(to.conversationKey, async () => {
    let handle = '';
    for (const [i, part] of parts.entries()) handle = await post(part, i, i === parts.length - 1);
    return handle;
  });
}
