/** The open conversation's title bar: the drawer toggle (phone), the title, rename and archive. */
import { useState } from 'preact/hooks';
import { archive, rename, setDrawer, useStore } from '../state.js';
import './Header.css';

export function Header() {
  const id = useStore((s) => s.currentId);
  const item = useStore(
    (s) => s.conversations.find((c) => c.id === s.currentId) ?? s.archived?.find((c) => c.id === s.currentId),
  );
  const labelled = useStore((s) => !!s.projects);
  const drawerOpen = useStore((s) => s.drawerOpen);
  const [editing, setEditing] = useState<string | undefined>();
  const [menu, setMenu] = useState(false);
  const title = item?.title ?? (id ? 'New conversation' : 'Rudder');

  const save = (e: Event) => {
    e.preventDefault();
    if (id && editing?.trim()) void rename(id, editing.trim());
    setEditing(undefined);
  };

  return (
    <header class="header">
      <button
        class="quiet drawer-toggle"
        data-testid="drawer-toggle"
        aria-controls="sidebar"
        aria-expanded={drawerOpen}
        aria-label="Conversations"
        onClick={() => setDrawer(!drawerOpen)}
      >
        <span class="burger" aria-hidden="true" />
      </button>
      {editing !== undefined ? (
        <form class="rename" onSubmit={save}>
          <input
            data-testid="rename-input"
            aria-label="Conversation title"
            value={editing}
            maxLength={200}
            onInput={(e) => setEditing((e.target as HTMLInputElement).value)}
            onBlur={save}
            ref={(el) => el?.focus()}
          />
        </form>
      ) : (
        <h1 class="title" data-testid="conversation-title" title={title}>
          {title}
          {labelled && item?.project && <span class="project">{item.project}</span>}
        </h1>
      )}
      {id && (
        <div class="menu-wrap">
          <button
            class="quiet"
            aria-haspopup="menu"
            aria-expanded={menu}
            aria-label="Conversation actions"
            data-testid="conversation-menu"
            onClick={() => setMenu(!menu)}
          >
            ⋯
          </button>
          {menu && (
            <div class="menu" role="menu" onClick={() => setMenu(false)}>
              <button role="menuitem" data-testid="rename" onClick={() => setEditing(item?.title ?? '')}>
                Rename
              </button>
              <button role="menuitem" data-testid="archive" onClick={() => void archive(id, !item?.archived)}>
                {item?.archived ? 'Unarchive' : 'Archive'}
              </button>
            </div>
          )}
        </div>
      )}
    </header>
  );
}
