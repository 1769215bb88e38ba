/**
 * A webhook delivery, from the request to the message: judged before anything is stored (hooks/delivery.ts: 404,
 * 413, 401, 400), then the replay rule (a key seen before, or a signed timestamp past its window: 200, nothing runs),
 * then what it becomes: a generic hook's payload through its template, a github hook's event through the shepherd
 * (shepherd.ts). A message enters through the door (intake/entry.ts) as from `hook:<name>`, its payload untrusted,
 * with the delivery's key stored in its transaction; 202 is answered only once that is committed.
 */

import { WEB } from '../../channels/web/name.js';
import type { HookConfig, HooksConfig } from '../../config/hooks-schema.js';
import { DEFAULT_SHEPHERD_EVENTS, hookNamed } from '../../config/hooks-schema.js';
import type { LiveConfig } from '../../config/load.js';
import { ERRORS } from '../../errors.js';
import { type HeaderValues, judgeDelivery } from '../../hooks/delivery.js';
import { readGithubEvent } from '../../hooks/github/shepherd.js';
import { forgetKeyAt, replayVerdict } from '../../hooks/replay.js';
import { renderDelivery } from '../../hooks/template.js';
import type { Logger } from '../../ops/logger.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import type { Entry } from '../intake/entry.js';
import type { Notifier } from '../notify/notifier.js';
import type { Replies } from '../replies/replies.js';
import { ensureJobConversation } from './conversation.js';
import { planShepherd, type ShepherdPlan } from './shepherd.js';

/** What the HTTP layer answers. */
export interface HookAnswer {
  status: 200 | 202 | 400 | 401 | 404 | 413;
  body:
    | { ok: true; ran: true; messageId: string }
    | { ok: true; ran: false; why: string }
    | { error: { code: string; message: string } };
}

export interface HookReceiverDeps {
  config: LiveConfig;
  store: Store;
  entry: Entry;
  projects: Projects;
  replies: Replies;
  notifier: Notifier;
  log: Logger;
}

type Accepted = Extract<Awaited<ReturnType<typeof judgeDelivery>>, { kind: 'accepted' }>;

const notRun = (why: string): HookAnswer => ({ status: 200, body: { ok: true, ran: false, why } });

export class HookReceiver {
  constructor(private readonly d: HookReceiverDeps) {}

  hooks(): HooksConfig {
    return this.d.config.current().hooks;
  }

  async deliver(name: string, headers: HeaderValues, body: Uint8Array): Promise<HookAnswer> {
    const { log } = this.d;
    const verdict = await judgeDelivery(this.hooks(), name, headers, body);
    if (verdict.kind === 'refused') {
      log.info(
        { hook: name.slice(0, 64), status: verdict.status, code: verdict.code, why: verdict.why },
        'hook refused',
      );
      return { status: verdict.status, body: { error: { code: verdict.code, message: ERRORS[verdict.code] } } };
    }
    // From the replay check to the store's write nothing awaits: two copies racing cannot both run.
    const keyWasNew = !this.d.store.hookDeliveries.get(name, verdict.key);
    const replay = replayVerdict(verdict.timestamp, Date.now(), keyWasNew);
    if (!replay.run) {
      const line = { hook: name, key: verdict.key, why: replay.why };
      if (replay.why === 'seen') log.info(line, `hook delivery not run: ${replay.text}`);
      else log.warn(line, `hook delivery not run: ${replay.text}`);
      return notRun(replay.why);
    }
    const hook = hookNamed(this.hooks(), name)!;
    return this.carryOut(hook, verdict, this.plan(hook, verdict));
  }

  /** What a delivery becomes. */
  private plan(hook: HookConfig, v: Accepted): ShepherdPlan {
    const home = this.home(v.hook, hook);
    if (hook.kind === 'generic' || v.event === undefined)
      return { kind: 'message', conversationId: home, text: renderDelivery(hook.prompt, v.payload), via: 'hook' };
    const events = hook.events ?? DEFAULT_SHEPHERD_EVENTS;
    const ev = readGithubEvent(v.event, v.payload, { events, ignoreUsers: hook.ignoreUsers });
    // Another event of GitHub's, with a prompt of the hook's own: it goes home through the template.
    const shepherds = (events as readonly string[]).includes(v.event);
    if (ev.kind === 'ignore' && hook.prompt && !shepherds && v.event !== 'ping')
      return { kind: 'message', conversationId: home, text: renderDelivery(hook.prompt, v.payload), via: 'hook' };
    return planShepherd(this.d.store, hook, ev, home);
  }

  private async carryOut(hook: HookConfig, v: Accepted, plan: ShepherdPlan): Promise<HookAnswer> {
    const { store, log } = this.d;
    const now = Date.now();
    const seen = { hook: v.hook, key: v.key, seenAt: now, forgetAt: forgetKeyAt(v.key, now) };
    if (plan.kind === 'message') return this.message(hook, v, plan, seen);
    store.tx(() => {
      store.hookDeliveries.claim(seen, { outcome: plan.kind === 'drop' ? plan.why : plan.kind });
      if (plan.kind === 'own') {
        const project = hook.project ?? this.d.projects.peek(plan.owner.conversationId).name;
        store.prOwners.record({ project, ...plan.owner });
      }
      if (plan.kind === 'notice') {
        store.prOwners.forget(plan.forget.repository, plan.forget.pr, hook.project);
        this.d.replies.send(plan.conversationId, 'notice', plan.text, []);
      }
    });
    await store.committed();
    const why = plan.kind === 'drop' ? plan.why : plan.kind === 'own' ? 'pull request owner recorded' : 'told';
    log.info({ hook: v.hook, event: v.event, key: v.key, outcome: plan.kind }, `hook delivery: ${why}`);
    return notRun(why);
  }

  private async message(
    hook: HookConfig,
    v: Accepted,
    plan: Extract<ShepherdPlan, { kind: 'message' }>,
    seen: { hook: string; key: string; seenAt: number; forgetAt: number },
  ): Promise<HookAnswer> {
    const { store, entry, log } = this.d;
    this.prepare(plan.conversationId, hook, v.hook);
    const r = await entry.job({
      conversationId: plan.conversationId,
      tag: { kind: 'hook', name: v.hook, ...(v.event ? { event: v.event } : {}) },
      id: v.key,
      text: plan.text,
      record: (row) => store.hookDeliveries.claim(seen, { messageId: row.id }),
    });
    if (r.duplicate) return notRun('seen');
    log.info(
      { hook: v.hook, event: v.event, key: v.key, conversationId: plan.conversationId, via: plan.via },
      'hook delivery stored',
    );
    this.d.notifier.jobArrived(plan.conversationId, `hook:${v.hook}`, plan.text);
    return { status: 202, body: { ok: true, ran: true, messageId: r.messageId } };
  }

  /** A hook's home: its `deliver`, else a page conversation of its own (`web:h-<name>`), in its project. */
  private home(name: string, hook: HookConfig): string {
    return hook.deliver ?? `${WEB}:h-${name}`;
  }

  private prepare(conversationId: string, hook: HookConfig, name: string): void {
    const title = conversationId === `${WEB}:h-${name}` ? `Hook ${name}` : undefined;
    ensureJobConversation(this.d, { conversationId, ...(title ? { title } : {}) }, hook.project);
  }
}
