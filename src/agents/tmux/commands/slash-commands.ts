/**
 * The TUI's own commands (/clear, /model), typed only into an idle input box and checked
 * afterwards: the command's effect must show (a new session id, the command in the transcript).
 */
import { RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import { boxIsEmpty, clearInputBox } from '../input/injection.js';
import { inShellMode, leaveShellMode } from '../input/shell-mode.js';
import { readMenu, selectOption } from '../menus/menus.js';
import { type Pane, sleep } from '../pane/pane.js';
import type { PaneHost } from '../pane/pane-host.js';
import { sessionOfPid } from '../transcript/transcript.js';

export interface SlashCommandRun {
  pane: Pane;
  /** Runs a step while holding the pane. */
  withPane: <T>(fn: () => Promise<T>) => Promise<T>;
  /** How long to wait for an idle box before giving up. */
  readyTimeoutMs: number;
  /** Whether the command took effect (polled after Enter). */
  took: () => boolean;
  /** The option to choose when the command asks to confirm itself (/model: "Switch model?"). */
  confirm?: RegExp;
  context: Record<string, unknown>;
}

const TOOK_TIMEOUT_MS = 10_000;
const ENTER_RETRY_MS = 2_500;

export async function runSlashCommand(command: string, run: SlashCommandRun): Promise<void> {
  const deadline = Date.now() + run.readyTimeoutMs;
  for (;;) {
    const typed = await run.withPane(async () => {
      const look = await run.pane.look();
      if (look.verdict !== 'ready') return false;
      // `/clear` typed in shell mode would run as a shell command: leave it first (or wait for someone's command).
      if ((await leaveShellMode(run.pane, look)) !== 'no') return false;
      await run.pane.tmux.leaveCopyMode(run.pane.name, look.info.inMode);
      await clearInputBox(run.pane);
      await run.pane.tmux.sendKeysLiteral(run.pane.name, command);
      // The completion list opens over the box; Enter runs the command as typed.
      await sleep(400);
      await run.pane.keys('Enter');
      return true;
    });
    if (typed) break;
    if (Date.now() >= deadline)
      throw new RudderError(
        'AGENT_NOT_READY',
        `${command} was not typed: the terminal did not show an idle input box.`,
        run.context,
      );
    await sleep(300);
  }
  const end = Date.now() + TOOK_TIMEOUT_MS;
  let nextEnter = Date.now() + ENTER_RETRY_MS;
  while (!run.took()) {
    if (Date.now() >= end)
      throw new RudderError(
        'AGENT_UNDELIVERED',
        `${command} was typed but did not take effect in the terminal.`,
        run.context,
      );
    if (Date.now() >= nextEnter) {
      nextEnter = Date.now() + ENTER_RETRY_MS;
      // The Enter was eaten: the command still sits in an idle box (never pressed at a menu).
      await run.withPane(async () => {
        const look = await run.pane.look();
        if (look.verdict === 'ready' && !inShellMode(look) && boxIsEmpty(await run.pane.ansi()) === false)
          await run.pane.keys('Enter');
      });
    }
    const confirm = run.confirm;
    if (confirm) {
      // The person asked for this command: its own confirmation is answered, by the option's text.
      const look = await run.pane.look();
      const menu = look.verdict === 'menu' ? readMenu(look.text) : undefined;
      if (menu?.options.some((o) => confirm.test(o.label)))
        await run.withPane(() =>
          selectOption(run.pane, { match: (o) => confirm.test(o.label), signature: menu.signature }),
        );
    }
    await sleep(150);
  }
  await run.pane.waitFor((l) => l.verdict === 'ready', run.readyTimeoutMs);
}

/** What /clear and /model need of the session: its pane host, the slash-command entries seen in the transcript. */
export interface TuiCommandDeps {
  host: PaneHost;
  log: Logger;
  readyTimeoutMs: number;
  context: Record<string, unknown>;
  /** Slash-command entries seen in the transcript so far (appended as they come). */
  commandTexts: readonly string[];
}

function runOf(deps: TuiCommandDeps, took: () => boolean): SlashCommandRun {
  return {
    pane: deps.host.pane!,
    withPane: (fn) => deps.host.withPane(fn),
    readyTimeoutMs: deps.readyTimeoutMs,
    took,
    context: deps.context,
  };
}

/**
 * /clear in the TUI: the process moves to a new session (read from sessions/<pid>.json), which is followed and
 * persisted.
 */
export async function clearInTui(deps: TuiCommandDeps): Promise<void> {
  const { host } = deps;
  const pid = host.pid;
  if (!host.live || pid === undefined) return host.forgetSession();
  const before = sessionOfPid(host.configDir, pid) ?? host.sid;
  await runSlashCommand(
    '/clear',
    runOf(deps, () => (sessionOfPid(host.configDir, pid) ?? before) !== before),
  );
  host.switchSession(sessionOfPid(host.configDir, pid)!);
  deps.log.info({ sessionId: host.sid }, 'context cleared with /clear');
}

/** /model <name> in the TUI, its confirmation answered; done when the transcript shows "Set model to". */
export async function modelInTui(deps: TuiCommandDeps, name: string): Promise<void> {
  if (!deps.host.live) return;
  const seen = deps.commandTexts.length;
  const took = () => (
    deps.host.readTranscript(), deps.commandTexts.slice(seen).some((t) => t.includes('Set model to'))
  );
  await runSlashCommand(`/model ${name}`, { ...runOf(deps, took), confirm: /^yes, switch\b/i });
  deps.log.info({ model: name }, 'model switched with /model');
}
