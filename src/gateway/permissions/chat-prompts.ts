/**
 * Permission requests in the chats, a surface of the desk: shown with a button per option where the
 * channel has buttons, else as the numbered notice in the outbox, in both cases with the whole input
 * (prompt-text.ts). Whichever way a request is answered (a button, /allow, a number, the web page)
 * or withdrawn, its chat message is edited to say so, without buttons. A surface that draws
 * requests itself (the web page) gets nothing here.
 */
import { randomBytes } from 'node:crypto';
import type { PermissionOption, PermissionRequest } from '../../agents/session.js';
import type { ButtonView, MessageRef, PressResult, PromptCalls, PromptView } from '../../channels/channel.js';
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import { isJobMessage } from '../../store/types.js';
import type { Chats } from '../chats.js';
import type { Replies } from '../replies/replies.js';
import type { OpenRequest, PermissionDesk, PermissionEvent } from './desk.js';
import { refuses } from './options.js';
import { type ComposedPrompt, composePrompt } from './prompt-text.js';
import type { AnswerSurface } from './surfaces.js';

/** Settled prompts remembered, so a late press is told who answered. */
const KEEP_SETTLED = 500;

export type Settlement = { kind: 'answered'; optionId: string; label: string; by: string } | { kind: 'withdrawn' };

interface Prompt {
  ref: string;
  conversationId: string;
  request: PermissionRequest;
  composed: ComposedPrompt;
  /** The platform message holding the buttons, once posted (undefined: shown as a notice instead). */
  handle?: Promise<string | undefined>;
  to?: MessageRef;
  calls?: PromptCalls;
  settled?: Settlement;
}

export interface ChatPromptsDeps {
  desk: PermissionDesk;
  chats: Chats;
  replies: Replies;
  store: Store;
  log: Logger;
}

export class ChatPrompts {
  private readonly byRef = new Map<string, Prompt>();
  private readonly byRequest = new Map<string, Prompt>();

  constructor(private readonly d: ChatPromptsDeps) {
    d.desk.subscribe((e) => this.changed(e));
  }

  private changed(e: PermissionEvent): void {
    if (e.kind === 'opened') return this.open(e.open);
    const id = e.open.request.requestId;
    if (e.kind === 'answered') this.settle(id, { kind: 'answered', optionId: e.optionId, label: e.label, by: e.by });
    else this.settle(id, { kind: 'withdrawn' });
  }

  /** Shows a new request in its conversation's chat. */
  private open(o: OpenRequest): void {
    const chat = this.d.chats.of(o.conversationId);
    if (!chat || chat.channel.capabilities?.drawsTurns) return;
    const ref = randomBytes(6).toString('base64url');
    const calls = chat.channel.capabilities?.buttons;
    const composed = composePrompt(o.request, { buttons: !!calls });
    const p: Prompt = { ref, conversationId: o.conversationId, request: o.request, composed };
    this.byRef.set(ref, p);
    this.byRequest.set(o.request.requestId, p);
    if (!calls) return this.d.replies.notice(o.conversationId, composed.text, o.messageId);
    const asked = o.messageId ? this.d.store.message(o.messageId) : undefined;
    // A schedule's or a webhook's message is no platform message: the request replies to nothing.
    const platformMessageId = asked && !isJobMessage(asked) ? asked.platformMessageId : undefined;
    p.calls = calls;
    p.to = { conversationKey: chat.key, platformMessageId };
    p.handle = calls.askPermission(p.to, this.view(p)).catch((err: unknown) => {
      this.d.log.warn(
        { conversationId: o.conversationId, err: (err as Error).message },
        'permission buttons not shown; sending the numbered request instead',
      );
      this.d.replies.notice(o.conversationId, composePrompt(o.request, { buttons: false }).text, o.messageId);
      return undefined;
    });
  }

  /**
   * The surface a reply typed in this conversation answers through (/allow, an option number): its chat, or the
   * page for a conversation whose requests the page draws.
   */
  surfaceOf(conversationId: string): AnswerSurface {
    return this.d.chats.of(conversationId)?.channel.capabilities?.drawsTurns ? 'page' : 'chat';
  }

  /** The request was answered (any way) or withdrawn: the message with the buttons says so. */
  private settle(requestId: string, s: Settlement): void {
    const p = this.byRequest.get(requestId);
    if (!p || p.settled) return;
    p.settled = s;
    this.byRequest.delete(requestId);
    this.forgetOld();
    const settle = p.calls?.settlePermission?.bind(p.calls);
    if (!p.handle || !settle) return;
    void p.handle
      .then((handle) => (handle ? settle(p.to!, handle, this.view(p)) : undefined))
      .catch((err: unknown) =>
        this.d.log.warn(
          { conversationId: p.conversationId, err: (err as Error).message },
          'permission message not updated with its answer',
        ),
      );
  }

  /** A press of one of a prompt's buttons, by an owner (checked by the caller). Answers at most once. */
  press(conversationId: string, ref: string, number: number, by: string): PressResult {
    const p = this.byRef.get(ref);
    if (!p || p.conversationId !== conversationId) return { ok: false, text: 'This request is no longer waiting.' };
    if (p.settled) {
      return p.settled.kind === 'answered'
        ? { ok: false, text: `Already answered by ${p.settled.by}: ${p.settled.label}.` }
        : { ok: false, text: 'This request was withdrawn: its turn ended.' };
    }
    const option = p.request.options[number - 1];
    if (!option) return { ok: false, text: 'That option is not offered here.' };
    const r = this.d.desk.answer(conversationId, p.request.requestId, option.id, by, 'chat');
    // A button is only drawn for what the chat may choose: a refused press is one of a button never shown.
    if (!r.ok)
      return {
        ok: false,
        text: r.reason === 'refused' ? 'That option is not offered here.' : 'This request is no longer waiting.',
      };
    return { ok: true, text: `${option.label}: sent to the agent.` };
  }

  private view(p: Prompt): PromptView {
    if (p.settled) return { text: p.composed.text, buttons: [], outcome: outcomeText(p.settled, p.request.options) };
    const buttons: ButtonView[] = p.composed.offered.map((o) => ({
      label: o.effect ? `⚠️ ${o.label}` : o.label,
      data: `p:${p.ref}:${o.number}`,
      ...(o.id === 'allow' ? { style: 'primary' as const } : refuses(o) ? { style: 'danger' as const } : {}),
    }));
    return { text: p.composed.text, buttons };
  }

  private forgetOld(): void {
    const settled = [...this.byRef.values()].filter((p) => p.settled);
    for (const p of settled.slice(0, Math.max(0, settled.length - KEEP_SETTLED))) this.byRef.delete(p.ref);
  }
}

function outcomeText(s: Settlement, options: PermissionOption[]): string {
  if (s.kind === 'withdrawn') return '⏹ Withdrawn: the turn ended before an answer.';
  const option = options.find((o) => o.id === s.optionId);
  return `${option && refuses(option) ? '🚫' : '✅'} **${s.label}**, answered by ${s.by}`;
}
