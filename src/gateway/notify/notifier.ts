/**
 * The notifier: reaches the person through Web Push when the agent needs them or has news. It
 * listens to the desk (a permission request waits), the step log (a turn ended after running at
 * least push.longTurnSeconds) and the lanes (messages failed for good; a rate limit reset and the
 * held messages run again), and pushes to every subscribed device, for web conversations only (a
 * chat's own app notifies for the chat's), never for a muted one, and never while a page shows
 * that conversation visibly (presence.ts). A request held back that way is pushed once nobody
 * looks at its conversation any more, if it still waits.
 */
import type { PermissionOption } from '../../agents/session.js';
import { WEB } from '../../channels/web/name.js';
import type { PushConfig } from '../../config/schema.js';
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import type { LaneAlerts } from '../lane/deps.js';
import type { OpenRequest, PermissionDesk } from '../permissions/desk.js';
import type { StepLog } from '../steps/step-log.js';
import type { TurnView } from '../steps/types.js';
import { type ActionClaim, type ActionTokens, TOKEN_LIFE_MS } from './action-tokens.js';
import { failedNotice, jobNotice, permissionNotice, rateLimitNotice, turnDoneNotice } from './compose.js';
import type { PushDelivery } from './deliver.js';
import type { PushButton, PushKind, PushPayload } from './payload.js';
import type { Presence } from './presence.js';

/** How long a rate-limit notice waits for the held messages' turn to start, so it can offer Stop. */
const RESUME_WAIT_MS = 5000;

export interface NotifierDeps {
  settings(): PushConfig;
  store: Store;
  desk: PermissionDesk;
  steps: StepLog;
  presence: Presence;
  tokens: ActionTokens;
  /** Undefined with push.enabled false or without the page: nothing is pushed. */
  delivery: PushDelivery | undefined;
  log: Logger;
}

interface Notice {
  kind: PushKind;
  tag: string;
  title: string;
  body: string;
  requireInteraction?: boolean;
  /** Each button's claim, without the subscription and expiry (added per device). */
  buttons?: Array<{ action: PushButton['action']; title: string; claim: DistributiveOmit<ActionClaim, 'sub' | 'exp'> }>;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const OPTIONS: Record<PushKind, { ttlSeconds: number; urgency: 'normal' | 'high' }> = {
  permission: { ttlSeconds: 12 * 3600, urgency: 'high' },
  'turn-done': { ttlSeconds: 6 * 3600, urgency: 'normal' },
  failed: { ttlSeconds: 24 * 3600, urgency: 'normal' },
  'rate-limit-reset': { ttlSeconds: 3600, urgency: 'normal' },
  job: { ttlSeconds: 12 * 3600, urgency: 'normal' },
  test: { ttlSeconds: 600, urgency: 'normal' },
};

export class Notifier implements LaneAlerts {
  /** Requests not pushed because their conversation was looked at: requestId → conversation. */
  private readonly heldBack = new Map<string, string>();
  /** Held messages running again after a rate limit: told once their turn starts (or after a wait). */
  private readonly resuming = new Map<string, { inputIds: Set<string>; timer: NodeJS.Timeout }>();
  private readonly ended = new Set<string>();

  constructor(private readonly d: NotifierDeps) {
    d.desk.subscribe((e) => {
      if (e.kind === 'opened') this.requestOpened(e.open);
      else this.heldBack.delete(e.open.request.requestId);
    });
    d.steps.onChange((turn) => this.turnChanged(turn));
    d.presence.onAway((conversationId) => this.lookedAway(conversationId));
  }

  failed(conversationId: string, text: string): void {
    const key = this.webKey(conversationId);
    if (!key) return;
    // A tag of its own: a device replaces a notification of the same tag without a sound, and a second failure is news.
    this.push(conversationId, {
      kind: 'failed',
      tag: `failed:${key}:${Date.now()}`,
      ...failedNotice(this.titleOf(conversationId), text),
    });
  }

  rateLimitReset(conversationId: string, inputIds: string[]): void {
    if (!this.webKey(conversationId) || inputIds.length === 0) return;
    clearTimeout(this.resuming.get(conversationId)?.timer);
    const timer = setTimeout(() => this.resumed(conversationId, undefined), RESUME_WAIT_MS);
    timer.unref();
    this.resuming.set(conversationId, { inputIds: new Set(inputIds), timer });
  }

  /**
   * A webhook's event came in for the agent in a page conversation (a failed check, a review): the owner hears of
   * it at once, not only when the agent has answered.
   */
  jobArrived(conversationId: string, from: string, text: string): void {
    if (!this.webKey(conversationId)) return;
    this.push(conversationId, { kind: 'job', tag: `job:${from}:${Date.now()}`, ...jobNotice(from, 'new', text) });
  }

  /** A notification to every device now, to check they receive it (POST /api/push/test). */
  test(): number {
    const n = this.d.store.push.count();
    this.push(null, { kind: 'test', tag: 'test', title: 'Rudder', body: 'Notifications reach this device.' });
    return n;
  }

  /** Shutdown: pushes on the way get up to `ms` to be answered; nothing is pushed after. */
  async stop(ms: number): Promise<void> {
    for (const r of this.resuming.values()) clearTimeout(r.timer);
    this.resuming.clear();
    this.d.presence.stop();
    await this.d.delivery?.stop(ms);
  }

  private requestOpened(open: OpenRequest, held = false): void {
    const { conversationId, request, turnId } = open;
    if (!this.webKey(conversationId)) return;
    if (!held && this.d.presence.watching(conversationId)) {
      this.heldBack.set(request.requestId, conversationId);
      return;
    }
    const step = this.d.steps
      .running(conversationId)
      ?.steps.find((s) => s.kind === 'permission' && s.requestId === request.requestId);
    const n = permissionNotice(this.titleOf(conversationId), request, step?.kind === 'permission' && !!step.inputCut);
    const answer = (o: PermissionOption | undefined, action: 'approve' | 'deny', title: string) =>
      o
        ? [
            {
              action,
              title,
              claim: { do: 'answer' as const, conversationId, requestId: request.requestId, optionId: o.id },
            },
          ]
        : [];
    this.push(conversationId, {
      kind: 'permission',
      tag: `permission:${request.requestId}`,
      title: n.title,
      body: n.body,
      requireInteraction: true,
      buttons: [
        ...answer(n.approve, 'approve', 'Approve'),
        ...answer(n.deny, 'deny', 'Deny'),
        { action: 'stop', title: 'Stop', claim: { do: 'stop', conversationId, turnId } },
      ],
    });
  }

  /** Nobody looks at the conversation any more: what was held back and still waits is pushed now. */
  private lookedAway(conversationId: string): void {
    for (const [requestId, conv] of [...this.heldBack]) {
      if (conv !== conversationId) continue;
      this.heldBack.delete(requestId);
      const open = this.d.desk.get(requestId);
      if (open) this.requestOpened(open, true);
    }
  }

  private turnChanged(turn: TurnView): void {
    const pending = this.resuming.get(turn.conversationId);
    if (turn.status === 'running' && pending && turn.inputIds.some((id) => pending.inputIds.has(id)))
      return this.resumed(turn.conversationId, turn.id);
    if (turn.status !== 'answered' || !turn.endedAt || this.ended.has(turn.id)) return;
    this.ended.add(turn.id);
    if (this.ended.size > 500) this.ended.delete(this.ended.values().next().value!);
    const ms = turn.endedAt - turn.startedAt;
    const key = this.webKey(turn.conversationId);
    const texts = turn.steps.filter((s) => s.kind === 'text');
    const reply = (texts.find((s) => s.final) ?? texts.at(-1))?.text;
    const job = this.jobOf(turn.inputIds);
    // A scheduled run's answer is pushed however short it was; a heartbeat that had nothing to say is not.
    if (key && job) return this.jobAnswered(turn, job, reply);
    if (!key || ms < this.d.settings().longTurnSeconds * 1000) return;
    this.push(turn.conversationId, {
      kind: 'turn-done',
      tag: `turn:${turn.id}`,
      ...turnDoneNotice(this.titleOf(turn.conversationId), ms, reply),
    });
  }

  /** The schedule whose run a turn answered (undefined for a person's turn), or 'quiet' for a heartbeat's silence. */
  private jobOf(inputIds: string[]): { from: string } | 'quiet' | undefined {
    for (const id of inputIds) {
      const tag = this.d.store.message(id)?.extra.job;
      if (tag?.kind !== 'schedule') continue;
      if (this.d.store.firings.byMessage(id)?.outcome === 'quiet') return 'quiet';
      return { from: `schedule:${tag.name}` };
    }
    return undefined;
  }

  private jobAnswered(turn: TurnView, job: { from: string } | 'quiet', reply: string | undefined): void {
    if (job === 'quiet') return;
    this.push(turn.conversationId, {
      kind: 'job',
      tag: `turn:${turn.id}`,
      ...jobNotice(job.from, this.titleOf(turn.conversationId), reply ?? 'The run ended.'),
    });
  }

  private resumed(conversationId: string, turnId: string | undefined): void {
    const pending = this.resuming.get(conversationId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.resuming.delete(conversationId);
    this.push(conversationId, {
      kind: 'rate-limit-reset',
      tag: `rate-limit:${this.webKey(conversationId)}:${Date.now()}`,
      ...rateLimitNotice(this.titleOf(conversationId), pending.inputIds.size),
      buttons: turnId ? [{ action: 'stop', title: 'Stop', claim: { do: 'stop', conversationId, turnId } }] : [],
    });
  }

  /** To every device, unless pushes are off, the conversation is muted, or someone looks at it now. */
  private push(conversationId: string | null, n: Notice): void {
    const { delivery, store, tokens } = this.d;
    if (!delivery) return;
    if (conversationId !== null && n.kind !== 'permission') {
      if (this.d.presence.watching(conversationId)) return;
    }
    if (conversationId !== null && store.push.isMuted(conversationId)) return;
    const at = Date.now();
    const conversation = conversationId === null ? null : (this.webKey(conversationId) ?? null);
    const devices = delivery.toAll(
      (sub): PushPayload => ({
        v: 1,
        kind: n.kind,
        tag: n.tag,
        title: n.title,
        body: n.body,
        conversation,
        buttons: (n.buttons ?? []).map((b) => ({
          action: b.action,
          title: b.title,
          token: tokens.sign({ ...b.claim, sub: sub.id, exp: at + TOKEN_LIFE_MS } as ActionClaim),
        })),
        requireInteraction: n.requireInteraction ?? false,
        at,
      }),
      OPTIONS[n.kind],
    );
    if (devices) this.d.log.info({ conversationId, kind: n.kind, devices }, 'notification pushed');
  }

  /** The page's key of a web conversation; undefined for a chat's (its own app notifies). */
  private webKey(conversationId: string): string | undefined {
    const row = this.d.store.conversation(conversationId);
    return row?.channel === WEB ? row.key : undefined;
  }

  private titleOf(conversationId: string): string {
    return this.d.store.conversation(conversationId)?.title ?? 'New conversation';
  }
}
