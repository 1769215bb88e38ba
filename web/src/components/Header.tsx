/**
 * The open conversation's title bar: the drawer toggle (phone), the title with its project and
 * branch (on a phone, on a line under the title), the Changes view's toggle with its name, and the
 * ⋯ menu.
 */
import { useState } from 'preact/hooks';
import { rename, setDrawer, toggleChanges, toggleSchedules, useStore } from '../state.js';
import { ConversationMenu } from './ConversationMenu.js';
import './Header.css';

export function Header() {
  const id = useStore((s) => s.currentId);
  const item = useStore(
    (s) => s.conversations.find((c) => c.id === s.currentId) ?? s.archived?.find((c) => c.id === s.currentId),
  );
  const projects = useStore((s) => s.projects?.projects);
  const drawerOpen = useStore((s) => s.drawerOpen);
  // The Schedules view takes the main area's place: under it, the Changes view is not what is shown.
  const schedulesOpen = useStore((s) => !!s.schedules?.open);
  const changesOpen = useStore((s) => !!s.changes?.open) && !schedulesOpen;
  const [editing, setEditing] = useState<string | undefined>();
  const title = item?.title ?? (id ? 'New conversation' : 'Rudder');
  const branch = item?.branch ?? null;
  const project = projects && item?.project;

  const save = (e: Event) => {
    e.preventDefault();
    if (id && editing?.trim()) void rename(id, editing.trim());
    setEditing(undefined);
  };

  return (
    <header class="header">
      <button
        type="button"
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
        <div class="heading">
          <h1 class="title" data-testid="conversation-title" title={title}>
            {title}
          </h1>
          {(project || branch) && (
            <span class="project" data-testid="project-chip" title={[project, branch].filter(Boolean).join(' · ')}>
              {project && <span class="name">{project}</span>}
              {project && branch && (
                <span class="sep" aria-hidden="true">
                  ·
                </span>
              )}
              {branch && <span class="branch">{branch}</span>}
            </span>
          )}
        </div>
      )}
      {id && (
        <button
          type="button"
          class={`quiet changes-toggle${changesOpen ? ' on' : ''}`}
          data-testid="changes-toggle"
          aria-pressed={changesOpen}
          title="What the agent changed"
          onClick={() => {
            if (schedulesOpen) toggleSchedules(false);
            toggleChanges(!changesOpen);
          }}
        >
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
            <path
              d="M8 4v10M3 9h10M11 20h10"
              fill="none"
              stroke="currentColor"
              stroke-width="2.2"
              stroke-linecap="round"
            />
          </svg>
          <span class="label">Changes</span>
        </button>
      )}
      {id && <ConversationMenu key={id} id={id} item={item} onRename={() => setEditing(item?.title ?? '')} />}
    </header>
  );
}
