/**
 * The permission desk: the one owner of every open permission request. A turn opens a request; a
 * person answers it with one of its option ids (a chat button, /allow, an option number, the web
 * page, later a notification) or the turn's end withdraws it. Every change is one PermissionEvent
 * that the surfaces subscribe to (the step log, the page's events, the chat prompts). An answer is
 * an option id all the way to the backend, which alone turns it into its wire form.
 *
 * The rules hold here, for every caller (rules.ts): an option the request did not offer is refused,
 * and so is anything but a refusal from a surface that did not show the input whole and plain. An
 * entry point only says who answered and through which surface; a refused answer leaves the request
 * waiting.
 */
import type { AgentSession, PermissionRequest } from '../../agents/session.js';
import type { Logger } from '../../ops/logger.js';
import { type RefusalCode, refusalOf } from './rules.js';
import type { AnswerSurface } from './surfaces.js';

export interface OpenRequest {
  conversationId: string;
  /** The turn that asked: its end withdraws the request. */
  turnId: string;
  /** The message the turn answers first (a chat shows the request beside it). */
  messageId: string | null;
  request: PermissionRequest;
  /** Where the answer goes. */
  session: AgentSession;
}

export type PermissionEvent =
  | { kind: 'opened'; open: OpenRequest }
  | { kind: 'answered'; open: OpenRequest; optionId: string; label: string; by: string }
  | { kind: 'withdrawn'; open: OpenRequest };

export type AnswerResult =
  | { ok: true; label: string }
  /**
   * unknown: no such request waits there (answered, withdrawn, another conversation's); undelivered:
   * its turn or process ended.
   */
  | { ok: false; reason: 'unknown' | 'undelivered' }
  /** The desk's rules refused it (`text` in the words of the surface it came from): the request still waits. */
  | { ok: false; reason: 'refused'; code: RefusalCode; text: string };

type Listener = (e: PermissionEvent) => void;

export class PermissionDesk {
  private readonly open = new Map<string, OpenRequest>();
  private readonly listeners: Listener[] = [];

  constructor(private readonly log: Logger) {}

  /** Surfaces are told in the order they subscribed. */
  subscribe(l: Listener): () => void {
    this.listeners.push(l);
    return () => void this.listeners.splice(this.listeners.indexOf(l) >>> 0, 1);
  }

  opened(open: OpenRequest): void {
    this.open.set(open.request.requestId, open);
    this.emit({ kind: 'opened', open });
  }

  /** The conversation's newest open request. */
  pending(conversationId: string): OpenRequest | undefined {
    return [...this.open.values()].reverse().find((p) => p.conversationId === conversationId);
  }

  get(requestId: string): OpenRequest | undefined {
    return this.open.get(requestId);
  }

  /** Every request waiting now, oldest first. */
  all(): OpenRequest[] {
    return [...this.open.values()];
  }

  /** Requests waiting now, in all conversations. */
  count(): number {
    return this.open.size;
  }

  /**
   * Answers a request once, by `by` through `via` (judged as a lock screen, the surface that shows least, when
   * unsaid): it leaves the desk before the answer is written, so a second answer finds it gone. Only an answer
   * that reached the agent is announced.
   */
  answer(
    conversationId: string,
    requestId: string,
    optionId: string,
    by: string,
    via: AnswerSurface = 'notification',
  ): AnswerResult {
    const open = this.open.get(requestId);
    if (!open || open.conversationId !== conversationId) return { ok: false, reason: 'unknown' };
    const refused = refusalOf(open.request, optionId, via);
    if (refused) {
      this.log.warn({ conversationId, requestId, optionId, via, code: refused.code }, 'a permission answer refused');
      return { ok: false, reason: 'refused', ...refused };
    }
    this.open.delete(requestId);
    if (!open.session.answerPermission(requestId, { optionId })) {
      this.log.warn(
        { conversationId, requestId },
        'a permission answer could not reach the agent (its turn or process ended)',
      );
      return { ok: false, reason: 'undelivered' };
    }
    const label = open.request.options.find((o) => o.id === optionId)!.label;
    this.emit({ kind: 'answered', open, optionId, label, by });
    return { ok: true, label };
  }

  /** The turn ended: its open requests can no longer be answered. */
  withdrawTurn(turnId: string): void {
    for (const [requestId, open] of this.open) {
      if (open.turnId !== turnId) continue;
      this.open.delete(requestId);
      this.emit({ kind: 'withdrawn', open });
    }
  }

  private emit(e: PermissionEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        this.log.warn({ err: (err as Error).message, kind: e.kind }, 'a permission surface failed');
      }
    }
  }
}
