/**
 * Menus that appear while a turn runs, relayed to the person. A menu is relayed once it has stayed
 * on screen for a moment (transient frames are not); a tool permission prompt at once, any other
 * menu at once when the turn's message is in (the agent is asking), else after the ready timeout.
 * A menu is never dismissed on Rudder's own initiative: the person answers it, here or in tmux.
 */
import type { Logger } from '../../../ops/logger.js';
import type { PermissionMode } from '../../claude/args.js';
import type { PermissionAnswer } from '../../session.js';
import type { Pane, PaneLook } from '../pane/pane.js';
import { TIMING } from '../tmux-launch.js';
import type { TmuxTurn } from '../tmux-turn.js';
import { readMenu, selectOption } from './menus.js';
import { autoAllowed, menuRequest, type OpenMenu, optionIndex } from './permission-relay.js';

export interface MenuWatchDeps {
  pane: () => Pane | undefined;
  withPane: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Reads new transcript entries (so a retried Enter can see the prompt was already answered). */
  refresh: () => void;
  autoAllow: readonly string[];
  /** The configured mode: with relay or manual, options that stop the asking are not offered. */
  permissionMode: PermissionMode;
  readyTimeoutMs: number;
  log: Logger;
}

/** An open menu no longer drawn for this long was answered or cancelled elsewhere. */
const GONE_AFTER_MS = 2_000;

export class MenuWatch {
  private readonly open = new Map<string, OpenMenu & { lastSeenAt: number; turn: TmuxTurn }>();
  private seen: { signature: string; since: number } | undefined;

  constructor(private readonly deps: MenuWatchDeps) {}

  /** A relayed menu is waiting for the person. */
  waiting(): boolean {
    return [...this.open.values()].some((m) => !m.answered);
  }

  /** A turn ended: its questions are moot. */
  forgetTurn(turn: TmuxTurn): void {
    for (const [id, m] of this.open) if (m.turn === turn) this.open.delete(id);
  }

  clear(): void {
    this.open.clear();
    this.seen = undefined;
  }

  /** Called with every look while a turn is open. */
  observe(look: PaneLook, turn: TmuxTurn | undefined): void {
    const now = Date.now();
    const view = look.verdict === 'menu' ? readMenu(look.text) : undefined;
    for (const [id, m] of this.open) {
      if (m.signature === view?.signature) m.lastSeenAt = now;
      else if (!m.answered && now - m.lastSeenAt > GONE_AFTER_MS) this.open.delete(id);
    }
    if (!view) return void (this.seen = undefined);
    if (this.seen?.signature !== view.signature) return void (this.seen = { signature: view.signature, since: now });
    if (now - this.seen.since < TIMING.menuStableMs || !turn) return;
    if ([...this.open.values()].some((m) => m.signature === view.signature)) return;
    const req = menuRequest(view, turn.pendingToolUse(), this.deps.permissionMode);
    if (req.kind === 'menu' && !turn.arrived && now - this.seen.since < this.deps.readyTimeoutMs) return;
    this.open.set(req.requestId, { ...req, lastSeenAt: now, turn });
    const rule = req.kind === 'permission' ? autoAllowed(this.deps.autoAllow, turn.pendingToolUse()) : undefined;
    if (rule) {
      this.deps.log.info({ tool: req.request.toolName, rule }, 'permission prompt approved by agent.tmux.autoAllow');
      turn.emit({ type: 'status', message: `Allowed ${req.request.toolName} (agent.tmux.autoAllow: ${rule}).` });
      return this.choose(
        req.requestId,
        req.request.options.findIndex((o) => o.id === 'allow'),
      );
    }
    this.deps.log.info(
      { requestId: req.requestId, kind: req.kind, tool: req.request.toolName, options: req.request.options.length },
      'menu relayed to the person',
    );
    turn.emit({ type: 'permission', request: req.request });
  }

  /** The person's answer; false when the request is unknown, answered, or has no such option. */
  answer(requestId: string, answer: PermissionAnswer): boolean {
    const m = this.open.get(requestId);
    if (!m || m.answered || !this.deps.pane()) return false;
    const index = optionIndex(m, answer);
    if (index === undefined) return false;
    if (m.kind === 'permission' && m.request.options[index]!.id === 'deny') {
      const input = m.request.input;
      const detail =
        typeof input.command === 'string' ? input.command : typeof input.file_path === 'string' ? input.file_path : '';
      m.turn.denied = { toolName: m.request.toolName, detail: detail.slice(0, 200) };
    }
    this.choose(requestId, index);
    return true;
  }

  /** Selects the request's option `index` in the pane (by its place in the menu on screen). */
  private choose(requestId: string, index: number): void {
    const m = this.open.get(requestId);
    const pane = this.deps.pane();
    const onScreen = m?.screenIndex[index];
    if (!m || !pane || onScreen === undefined) return;
    m.answered = true;
    const stillPending = () => {
      if (!m.toolUseId) return true;
      this.deps.refresh();
      return m.turn.pendingToolUse()?.id === m.toolUseId;
    };
    void this.deps
      .withPane(() => selectOption(pane, { match: (_, i) => i === onScreen, signature: m.signature, stillPending }))
      .catch(() => 'enter-ignored' as const)
      .then((outcome) => {
        this.open.delete(requestId);
        const label = m.request.options[index]?.label;
        if (outcome === 'selected' || outcome === 'menu-gone')
          return void this.deps.log.info({ requestId, option: label, outcome }, 'menu answered in the pane');
        // Not selected: forgotten here, so the next look relays the same menu again under a new id.
        m.turn.denied = undefined;
        this.deps.log.warn({ requestId, option: label, outcome }, 'menu answer could not be selected in the pane');
        m.turn.emit({
          type: 'status',
          notify: true,
          message:
            `⚠️ Could not select “${label}” in the terminal (${outcome}). The question is asked ` +
            `again; or answer it with tmux attach.`,
        });
      });
  }
}
