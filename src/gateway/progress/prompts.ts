/**
 * Permission requests in the chats: shown with a button per option where the channel has buttons
 * (askPermission), else as the numbered notice in the outbox, in both cases with the whole input
 * (gateway/progress/prompt.ts). Whichever way a request is answered (a button, /allow, a number,
 * the web page) or withdrawn, its chat message is edited to say so, without buttons.
 */
import { randomBytes } from 'node:crypto';
import type { PermissionRequest } from '../../agents/session.js';
import type { ButtonView, Channel, MessageRef, PressResult, PromptView } from '../../channels/channel.js';
import type { Logger } from '../../ops/logger.js';
import { type ComposedPrompt, composePrompt } from './prompt.js';

/** Settled prompts remembered, so a late press is told who answered. */
const KEEP_SETTLED = 500;

export interface PromptHost {
  log: Logger;
  target(conversationId: string): { channel: Channel; key: string } | undefined;
  /** The numbered notice, through the durable outbox. */
  sendNotice(conversationId: string, text: string, messageId: string | null): void;
  /** core.answerPermission: true when the answer reached the agent (it settles the prompt). */
  answer(conversationId: string, requestId: string, optionId: string, by: string): boolean;
}

export type Settlement = { kind: 'answered'; optionId: string; label: string; by: string } | { kind: 'withdrawn' };

interface Prompt {
  ref: string;
  conversationId: string;
  request: PermissionRequest;
  composed: ComposedPrompt;
  /** The platform message holding the buttons, once posted (undefined: shown as a notice instead). */
  handle?: Promise<string | undefined>;
  to?: MessageRef;
  channel?: Channel;
  settled?: Settlement;
}

export class PermissionPrompts {
  private readonly byRef = new Map<string, Prompt>();
  private readonly byRequest = new Map<string, Prompt>();

  constructor(private readonly host: PromptHost) {}

  /** Shows a new request in its conversation's chat (the web page draws its own). */
  open(conversationId: string, request: PermissionRequest, messageId: string | null, platformMessageId?: string): void {
    const target = this.host.target(conversationId);
    if (!target || target.channel.name === 'web') return;
    const ref = randomBytes(6).toString('base64url');
    const buttons = !!target.channel.askPermission;
    const composed = composePrompt(request, { buttons });
    const p: Prompt = { ref, conversationId, request, composed };
    this.byRef.set(ref, p);
    this.byRequest.set(request.requestId, p);
    if (!buttons) return this.host.sendNotice(conversationId, composed.text, messageId);
    p.channel = target.channel;
    p.to = { conversationKey: target.key, platformMessageId };
    p.handle = target.channel.askPermission!(p.to, this.view(p)).catch((err: unknown) => {
      this.host.log.warn(
        { conversationId, err: (err as Error).message },
        'permission buttons not shown; sending the numbered request instead',
      );
      this.host.sendNotice(conversationId, composePrompt(request, { buttons: false }).text, messageId);
      return undefined;
    });
  }

  /** Why a chat may not choose this option (the input was not shown whole), or undefined. */
  refusal(requestId: string, optionId: string): string | undefined {
    const p = this.byRequest.get(requestId);
    if (!p?.composed.cut || optionId === 'deny') return undefined;
    return (
      `This request's input is ${p.composed.inputChars} characters, too long to show whole in a chat, ` +
      `so it cannot be approved here. Deny it, or answer on the web page.`
    );
  }

  /** The request was answered (any way) or withdrawn: the message with the buttons says so. */
  settle(requestId: string, s: Settlement): void {
    const p = this.byRequest.get(requestId);
    if (!p || p.settled) return;
    p.settled = s;
    this.byRequest.delete(requestId);
    this.forgetOld();
    if (!p.handle || !p.channel?.settlePermission) return;
    const channel = p.channel;
    void p.handle
      .then((handle) => (handle ? channel.settlePermission!(p.to!, handle, this.view(p)) : undefined))
      .catch((err: unknown) =>
        this.host.log.warn(
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
    if (!option || !p.composed.offered.some((o) => o.number === number))
      return { ok: false, text: 'That option is not offered here.' };
    const refused = this.refusal(p.request.requestId, option.id);
    if (refused) return { ok: false, text: refused };
    if (!this.host.answer(conversationId, p.request.requestId, option.id, by))
      return { ok: false, text: 'This request is no longer waiting.' };
    return { ok: true, text: `${option.label}: sent to the agent.` };
  }

  private view(p: Prompt): PromptView {
    if (p.settled) return { text: p.composed.text, buttons: [], outcome: outcomeText(p.settled) };
    const buttons: ButtonView[] = p.composed.offered.map((o) => ({
      label: o.effect ? `⚠️ ${o.label}` : o.label,
      data: `p:${p.ref}:${o.number}`,
      ...(o.id === 'allow' ? { style: 'primary' as const } : o.id === 'deny' ? { style: 'danger' as const } : {}),
    }));
    return { text: p.composed.text, buttons };
  }

  private forgetOld(): void {
    const settled = [...this.byRef.values()].filter((p) => p.settled);
    for (const p of settled.slice(0, Math.max(0, settled.length - KEEP_SETTLED))) this.byRef.delete(p.ref);
  }
}

function outcomeText(s: Settlement): string {
  if (s.kind === 'withdrawn') return '⏹ Withdrawn: the turn ended before an answer.';
  return `${s.optionId === 'deny' ? '🚫' : '✅'} **${s.label}**, answered by ${s.by}`;
}
