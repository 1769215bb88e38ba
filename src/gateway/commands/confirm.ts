/**
 * Confirmations asked in a chat before something that cannot be undone (/discard): the question
 * with a confirm and a cancel button where the channel has buttons. A press comes in through
 * intake (intake/presses.ts, owners only) and is taken at most once: the prompt is settled
 * before the action starts, so a second press, or a press on the other button, finds it settled.
 * The action runs in the background (a platform wants its press answered within seconds), and the
 * question's message is edited to say what came of it.
 */
import { randomBytes } from 'node:crypto';
import type { MessageRef, PressResult, PromptCalls, PromptView } from '../../channels/channel.js';
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import type { Chats } from '../chats.js';

/** Settled prompts remembered, so a late press is told what happened. */
const KEEP = 200;

export interface ConfirmRequest {
  conversationId: string;
  /** The command's message, which the question answers. */
  messageId: string;
  /** The question, as Markdown. */
  text: string;
  confirmLabel: string;
  cancelLabel: string;
  /** Runs once, after the confirm button; what it resolves to is shown on the question's message. */
  run(by: string): Promise<string>;
}

interface Prompt {
  ref: string;
  req: ConfirmRequest;
  to: MessageRef;
  calls: PromptCalls;
  handle: Promise<string | undefined>;
  /** Edits of the question's message, one after the other, each showing the prompt as it is then. */
  edits: Promise<void>;
  settled?: { by: string; confirmed: boolean; outcome: string };
}

export interface ConfirmationsDeps {
  chats: Chats;
  store: Store;
  log: Logger;
}

export class Confirmations {
  private readonly byRef = new Map<string, Prompt>();

  constructor(private readonly d: ConfirmationsDeps) {}

  /** Posts the question with its two buttons; false when the chat cannot show buttons. */
  ask(req: ConfirmRequest, onFailure: () => void): boolean {
    const chat = this.d.chats.of(req.conversationId);
    const calls = chat?.channel.capabilities?.buttons;
    if (!chat || !calls || chat.channel.capabilities?.drawsTurns) return false;
    const ref = randomBytes(6).toString('base64url');
    const to = { conversationKey: chat.key, platformMessageId: this.d.store.message(req.messageId)?.platformMessageId };
    const p = { ref, req, to, calls, edits: Promise.resolve() } as Prompt;
    this.byRef.set(ref, p);
    p.handle = calls.askPermission(to, this.view(p)).catch((err: unknown) => {
      this.d.log.warn(
        { conversationId: req.conversationId, err: (err as Error).message },
        'confirmation buttons not shown; asking in text instead',
      );
      this.byRef.delete(ref);
      onFailure();
      return undefined;
    });
    return true;
  }

  /** A press of a confirmation's button, by an owner (checked by the caller); taken at most once. */
  press(conversationId: string, ref: string, confirmed: boolean, by: string): PressResult {
    const p = this.byRef.get(ref);
    if (!p || p.req.conversationId !== conversationId) return { ok: false, text: 'This question is no longer open.' };
    if (p.settled)
      return {
        ok: false,
        text: `Already answered by ${p.settled.by}: ${p.settled.confirmed ? p.req.confirmLabel : p.req.cancelLabel}.`,
      };
    p.settled = { by, confirmed, outcome: confirmed ? '⏳ Working on it…' : `${p.req.cancelLabel}, said ${by}.` };
    this.forgetOld();
    this.update(p);
    if (!confirmed) return { ok: true, text: p.req.cancelLabel };
    void p.req
      .run(by)
      .catch((err: unknown) => `Failed: ${(err as Error).message}`)
      .then((outcome) => {
        p.settled = { by, confirmed, outcome: `${outcome} (confirmed by ${by})` };
        this.update(p);
      });
    return { ok: true, text: `${p.req.confirmLabel}: working on it.` };
  }

  private view(p: Prompt): PromptView {
    if (p.settled) return { text: p.req.text, buttons: [], outcome: p.settled.outcome };
    return {
      text: p.req.text,
      buttons: [
        { label: p.req.confirmLabel, data: `c:${p.ref}:y`, style: 'danger' },
        { label: p.req.cancelLabel, data: `c:${p.ref}:n` },
      ],
    };
  }

  /** The question's message shows the outcome, without buttons. */
  private update(p: Prompt): void {
    const settle = p.calls.settlePermission?.bind(p.calls);
    if (!settle) return;
    p.edits = p.edits
      .then(async () => {
        const handle = await p.handle;
        if (handle) await settle(p.to, handle, this.view(p));
      })
      .catch((err: unknown) =>
        this.d.log.warn(
          { conversationId: p.req.conversationId, err: (err as Error).message },
          'confirmation message not updated',
        ),
      );
  }

  private forgetOld(): void {
    const settled = [...this.byRef.values()].filter((p) => p.settled);
    for (const p of settled.slice(0, Math.max(0, settled.length - KEEP))) this.byRef.delete(p.ref);
  }
}
