/**
 * The ⋯ menu of the open conversation: rename, move to another project (the /project command,
 * sent as any message is), open it in a terminal (the command to copy: TerminalCommand), archive, and
 * notifications (NotifyMenu). It opens whole: a ⋯ pressed before the browser said what notifications it allows
 * waits for that answer (a moment at most), and the answer it opened with holds while it is open, so End is the
 * last item for good. It takes the focus when it
 * opens (its first item), moves with the arrow keys, Home and End, and closes on Escape (the focus
 * back on ⋯), on Tab, on a tap outside it, and when another conversation opens (the header keys it
 * by the conversation, so it is gone in the same paint that shows the other conversation's title).
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { getState, type PushStatus } from '../app-store.js';
import { pushAnswered } from '../push.js';
import { archive, moveToProject, useStore } from '../state.js';
import type { ConversationItem } from '../types.js';
import { NotifyMenu } from './NotifyMenu.js';
import { TerminalCommand } from './TerminalCommand.js';

/** How long a ⋯ pressed right after the page opened waits for the browser's answer about notifications. */
const PUSH_WAIT_MS = 1_500;

const items = (menu: HTMLElement | null) => [
  ...(menu?.querySelectorAll<HTMLElement>('[role^="menuitem"]:not(:disabled)') ?? []),
];

/** The arrow keys, Home and End move between the items; Tab leaves the menu and closes it. */
function moveFocus(e: KeyboardEvent, menu: HTMLElement | null, close: () => void): void {
  if (e.key === 'Tab') return close();
  const all = items(menu);
  const at = all.indexOf(document.activeElement as HTMLElement);
  const to =
    e.key === 'ArrowDown'
      ? (at + 1) % all.length
      : e.key === 'ArrowUp'
        ? (at - 1 + all.length) % all.length
        : e.key === 'Home'
          ? 0
          : e.key === 'End'
            ? all.length - 1
            : undefined;
  if (to === undefined || !all.length) return;
  e.preventDefault();
  all[to]?.focus();
}

export function ConversationMenu({ id, item, onRename }: { id: string; item?: ConversationItem; onRename(): void }) {
  const projects = useStore((s) => s.projects?.projects);
  const node = useStore((s) => (item ? s.projectNodes?.[item.project] : undefined));
  const [open, setOpen] = useState(false);
  const [push, setPush] = useState<PushStatus | undefined>(undefined);
  const opening = useRef(false);
  const [moving, setMoving] = useState(false);
  const [terminal, setTerminal] = useState(false);
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const show = () => {
    setPush(getState().push);
    setOpen(true);
  };
  const press = () => {
    if (open) return close();
    if (getState().push !== undefined) return show();
    if (opening.current) return;
    opening.current = true;
    void pushAnswered(PUSH_WAIT_MS).then(() => {
      opening.current = false;
      show();
    });
  };
  const close = () => {
    setOpen(false);
    setMoving(false);
    setTerminal(false);
  };

  useLayoutEffect(() => {
    if (open) items(menu.current)[0]?.focus();
  }, [open]);
  // Attached before the menu is painted: an Escape or a tap right after it shows is not missed.
  useLayoutEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      close();
      button.current?.focus();
    };
    const onDown = (e: PointerEvent) => {
      if (!wrap.current?.contains(e.target as Node)) close();
    };
    document.addEventListener('keydown', onKey, true);
    document.addEventListener('pointerdown', onDown, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      document.removeEventListener('pointerdown', onDown, true);
    };
  }, [open]);

  const act = (f: () => void) => () => {
    close();
    f();
  };
  return (
    <div class="menu-wrap" ref={wrap}>
      <button
        type="button"
        class="quiet"
        ref={button}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label="Conversation actions"
        data-testid="conversation-menu"
        onClick={press}
      >
        ⋯
      </button>
      {open && (
        <div
          class="menu"
          role="menu"
          data-testid="menu"
          ref={menu}
          onKeyDown={(e) => moveFocus(e, menu.current, close)}
        >
          <button type="button" role="menuitem" data-testid="rename" onClick={act(onRename)}>
            Rename
          </button>
          {projects && (
            <button
              type="button"
              role="menuitem"
              data-testid="move-project"
              aria-expanded={moving}
              onClick={() => setMoving(!moving)}
            >
              Move to project…
            </button>
          )}
          {projects && moving && (
            <div class="submenu">
              {projects.map((p) => (
                <button
                  type="button"
                  role="menuitemradio"
                  key={p.name}
                  aria-checked={p.name === item?.project}
                  disabled={p.name === item?.project}
                  data-testid={`move-to-${p.name}`}
                  onClick={act(() => moveToProject(p.name))}
                >
                  {p.name}
                  {p.node && <span class="dim"> on {p.node}</span>}
                  {p.name === item?.project && <span class="dim"> (here now)</span>}
                </button>
              ))}
            </div>
          )}
          <button
            type="button"
            role="menuitem"
            data-testid="open-in-terminal"
            aria-expanded={terminal}
            onClick={() => setTerminal(!terminal)}
          >
            Open in a terminal…
          </button>
          {terminal && <TerminalCommand id={id} node={node} />}
          <button
            type="button"
            role="menuitem"
            data-testid="archive"
            onClick={act(() => void archive(id, !item?.archived))}
          >
            {item?.archived ? 'Unarchive' : 'Archive'}
          </button>
          <hr class="menu-rule" />
          <NotifyMenu id={id} item={item} push={push} act={act} />
        </div>
      )}
    </div>
  );
}
