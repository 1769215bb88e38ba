/**
 * The conversations: newest activity first, unread marked, one that waits for an approval marked
 * louder; with several projects each shows its project (and branch), the list can be narrowed to
 * one project, and a new conversation is started in a chosen one. Archived ones apart.
 */
import { useState } from 'preact/hooks';
import { ago } from '../format.js';
import { useNow } from '../hooks.js';
import {
  newConversation,
  openConversation,
  setDrawer,
  setProjectFilter,
  showArchived,
  toggleSchedules,
  useStore,
} from '../state.js';
import type { ConversationItem } from '../types.js';
import './ConversationList.css';
import { Pairing } from './Pairing.js';

function Item({ c, active, now }: { c: ConversationItem; active: boolean; now: number }) {
  const projects = useStore((s) => s.projects?.projects);
  const waiting = useStore((s) => s.waiting[c.id] ?? false);
  // The open conversation is being read: it is marked read on the gateway a moment later.
  const unread = c.unread && !active;
  const branch = c.branch;
  return (
    <li
      class={`conv${active ? ' active' : ''}${unread ? ' unread' : ''}${waiting ? ' waiting' : ''}`}
      data-testid="conversation"
      data-id={c.id}
    >
      <button
        type="button"
        class="quiet"
        aria-current={active ? 'page' : undefined}
        onClick={() => void openConversation(c.id)}
      >
        <span class="name-row">
          <span class="name">{c.title ?? 'New conversation'}</span>
          <span class="when">{ago(c.lastActivityAt, now)}</span>
          {unread && <span class="dot" data-testid="unread" role="img" aria-label="unread" />}
        </span>
        {((projects && c.project) || branch || waiting) && (
          <span class="meta">
            {waiting && (
              <span class="waiting-badge" data-testid="waiting">
                🔐 Waiting for you
              </span>
            )}
            {projects && c.project && (
              <span class="project" data-testid="item-project">
                {c.project}
              </span>
            )}
            {branch && (
              <span class="branch" data-testid="item-branch">
                {branch}
              </span>
            )}
          </span>
        )}
      </button>
    </li>
  );
}

function Filter() {
  const projects = useStore((s) => s.projects?.projects);
  const filter = useStore((s) => s.projectFilter);
  if (!projects) return null;
  const chip = (name: string | undefined, label: string) => (
    <button
      type="button"
      key={label}
      class={`chip${filter === name ? ' on' : ''}`}
      aria-pressed={filter === name}
      data-testid="project-filter"
      data-project={name ?? ''}
      onClick={() => setProjectFilter(name)}
    >
      {label}
    </button>
  );
  return (
    <div class="filter" role="toolbar" aria-label="Show the conversations of">
      {chip(undefined, 'All')}
      {projects.map((p) => chip(p.name, p.name))}
    </div>
  );
}

export function ConversationList() {
  const all = useStore((s) => s.conversations);
  const archived = useStore((s) => s.archived);
  const currentId = useStore((s) => s.currentId);
  const projects = useStore((s) => s.projects);
  const filter = useStore((s) => s.projectFilter);
  const [project, setProject] = useState<string | undefined>();
  const now = useNow(true, 30_000);
  const chosen = project ?? filter ?? projects?.defaultProject ?? projects?.projects[0]?.name;
  const shown = (list: ConversationItem[]) => (filter ? list.filter((c) => c.project === filter) : list);
  const conversations = shown(all);

  return (
    <div class="convlist">
      <div class="convlist-head">
        <span class="brand">Rudder</span>
        <button
          type="button"
          class="primary"
          data-testid="new-conversation"
          onClick={() => void newConversation(projects ? chosen : undefined)}
        >
          New
        </button>
        {/* The project of a new conversation, on a line of its own: its whole name shows. */}
        {projects && projects.projects.length > 0 && (
          <label class="picker">
            <span>New in</span>
            <select
              data-testid="project-picker"
              aria-label="Project of a new conversation"
              value={chosen}
              onChange={(e) => setProject((e.target as HTMLSelectElement).value)}
            >
              {projects.projects.map((p) => (
                <option value={p.name} key={p.name}>
                  {p.node ? `${p.name} (on ${p.node})` : p.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <Filter />
      <ul class="convs" data-testid="conversations">
        {conversations.map((c) => (
          <Item key={c.id} c={c} active={c.id === currentId} now={now} />
        ))}
        {filter && conversations.length === 0 && <li class="empty dim">No conversation in {filter}.</li>}
      </ul>
      <div class="archived">
        <button
          type="button"
          class="quiet"
          data-testid="show-archived"
          aria-expanded={!!archived}
          onClick={() => void showArchived(!archived)}
        >
          {archived ? 'Hide archived' : 'Archived'}
        </button>
        <button
          type="button"
          class="quiet"
          data-testid="open-schedules"
          onClick={() => {
            toggleSchedules(true);
            setDrawer(false);
          }}
        >
          Schedules
        </button>
        {archived && (
          <ul class="convs" data-testid="archived-conversations">
            {archived.length === 0 && <li class="empty dim">Nothing archived.</li>}
            {shown(archived).map((c) => (
              <Item key={c.id} c={c} active={c.id === currentId} now={now} />
            ))}
          </ul>
        )}
      </div>
      <Pairing />
    </div>
  );
}
