/**
 * The review commands of a chat, on the conversation's worktree: /diff (the files with their +/−
 * counts and the first lines of each hunk, in messages within the chat's limit), /commit
 * <message>, /merge, /push, /pr and /discard (a confirmation with buttons, or the exact command to
 * send where the chat has none). Commands are the owner's alone (intake checks); every action
 * goes through the Reviews service, which refuses while a turn runs there and records it.
 */
import { isRudderError } from '../../errors.js';
import { renderChatDiff } from '../../projects/changes/chat-diff.js';
import type { DiscardEntry } from '../../projects/changes/types.js';
import { sanitiseText } from '../../security/sanitise.js';
import type { Chats } from '../chats.js';
import type { Replies } from '../replies/replies.js';
import type { Reviews } from '../review/reviews.js';
import {
  commitSummary,
  discardSummary,
  discardText,
  mergeSummary,
  pullRequestSummary,
  pushSummary,
} from '../review/summary.js';
import type { Confirmations } from './confirm.js';

export interface ReviewCommandsDeps {
  reviews: Reviews;
  chats: Chats;
  confirms: Confirmations;
  replies: Replies;
}

/** What a review command answers: its reply, then further messages in order (a long /diff). */
export interface ReviewReply {
  reply: string;
  more?: string[];
}

/** A chat without a declared limit (the web page) still gets messages of a readable size. */
const DEFAULT_LIMIT = 4000;
/** Room for what a channel's converter adds (fences, entities) before it must split a message itself. */
const LIMIT_SHARE = 0.9;
/** Beyond this many messages, /diff sends the file list alone and points to the page. */
const MAX_MESSAGES = 5;
/** Files a discard question names one by one. */
const LISTED = 30;
const TOKEN = /^[0-9a-f]{16}$/;

/** A refusal or failure as the person reads it; anything else is the gateway's own error. */
async function answer(run: () => Promise<ReviewReply | string>): Promise<ReviewReply> {
  try {
    const r = await run();
    return typeof r === 'string' ? { reply: r } : r;
  } catch (err) {
    if (isRudderError(err)) return { reply: err.message };
    throw err;
  }
}

const clean = (s: string) => sanitiseText(s);

export function discardQuestion(branch: string | null, files: DiscardEntry[]): string {
  const lines = files.slice(0, LISTED).map((f) => `• ${clean(f.path)} (${f.state})`);
  if (files.length > LISTED) lines.push(`… and ${files.length - LISTED} more`);
  const n = files.length;
  return [
    `Discard the uncommitted changes${branch ? ` on ${clean(branch)}` : ''}? This cannot be undone. ` +
      `${n} path${n === 1 ? '' : 's'}, ignored ones included:`,
    ...lines,
  ].join('\n');
}

export class ReviewCommands {
  constructor(private readonly d: ReviewCommandsDeps) {}

  diff(conversationId: string): Promise<ReviewReply> {
    return answer(async () => {
      const body = await this.d.reviews.changes(conversationId);
      const chat = this.d.chats.of(conversationId);
      const limit = Math.floor((chat?.channel.capabilities?.textLimit ?? DEFAULT_LIMIT) * LIMIT_SHARE);
      const d = renderChatDiff(body.changes, { limit, fence: true, maxMessages: MAX_MESSAGES });
      if (d.kind === 'messages') return { reply: d.messages[0]!, more: d.messages.slice(1) };
      // No channel can send a file yet: the list, and where the whole diff is.
      const kb = Math.ceil(Buffer.byteLength(d.file.text) / 1024);
      return {
        reply: d.summary,
        more: [`The whole diff (${kb} KB) is too long for this chat; the page's Changes view shows every line.`],
      };
    });
  }

  commit(conversationId: string, args: string, by: string): Promise<ReviewReply> {
    return answer(async () => {
      if (!args.trim())
        return 'Usage: /commit <message>, e.g. /commit Fix the parser. It commits everything uncommitted here.';
      return commitSummary(await this.d.reviews.commit(conversationId, args, by));
    });
  }

  merge(conversationId: string, by: string): Promise<ReviewReply> {
    return answer(async () => mergeSummary(await this.d.reviews.merge(conversationId, by)));
  }

  push(conversationId: string, args: string, by: string): Promise<ReviewReply> {
    return answer(async () => {
      const which = args.trim() === 'base' ? 'base' : args.trim() ? undefined : 'branch';
      if (!which) return 'Usage: /push (this branch), or /push base (the base branch, after a /merge).';
      return pushSummary(await this.d.reviews.push(conversationId, by, which));
    });
  }

  pullRequest(conversationId: string, args: string, by: string): Promise<ReviewReply> {
    return answer(async () => {
      const title = args.trim() || undefined;
      return pullRequestSummary(await this.d.reviews.openPullRequest(conversationId, by, { title }));
    });
  }

  /** /discard asks first; /discard <token> (the one its question names, where there are no buttons) discards. */
  discard(conversationId: string, args: string, call: { by: string; messageId: string }): Promise<ReviewReply> {
    return answer(async () => {
      const token = args.trim();
      if (token && !TOKEN.test(token)) return 'Usage: /discard, then confirm with the code its question gives.';
      if (token) {
        const s = discardSummary(await this.d.reviews.discard(conversationId, token, call.by));
        return discardText(s);
      }
      const preview = await this.d.reviews.discardPreview(conversationId);
      if (!preview.files.length) return 'There is nothing uncommitted to discard.';
      const question = discardQuestion(this.d.reviews.branchOf(conversationId), preview.files);
      const typed = `${question}\n\nTo discard exactly these, send /discard ${preview.token}`;
      const asked = this.d.confirms.ask(
        {
          conversationId,
          messageId: call.messageId,
          text: question,
          confirmLabel: `Discard ${preview.files.length}`,
          cancelLabel: 'Keep them',
          run: async (by) =>
            discardText(discardSummary(await this.d.reviews.discard(conversationId, preview.token, by))),
        },
        // The buttons could not be shown: the question goes out in text, with its code.
        () => this.d.replies.notice(conversationId, typed, call.messageId),
      );
      return asked ? { reply: '' } : typed;
    });
  }
}
