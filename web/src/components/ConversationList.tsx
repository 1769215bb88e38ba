/**
 * The conversations: newest activity first, unread marked; a new one (in a project, when there are projects); archived
 * ones apart.
 */
import { useState } from 'preact/hooks';
import { ago } from '../format.js';
import { useNow } from '../hooks.js';
import { newConversation, openConversation, showArchived, useStore } from '../state.js';
import type { ConversationItem } from '../types.js';
import './ConversationList.css';
import { Pairing } from './Pairing.js';

function Item({ c, active, now }: { c: ConversationItem; active: boolean; now: number }) {
  const labelled = useStore((s) => !!s.projects);
  // The open conversation is being read: it is marked read on the gateway a moment later.
  const unread = c.unread && !active;
  return (
    <li class={`conv${active ? ' active' : ''}${unread ? ' unread' : ''}`} data-testid="conversation" data-id={c.id}>
      <button class="quiet" aria-current={active ? 'page' : undefined} onClick={() => void openConversation(c.id)}>
        <span class="name">{c.title ?? 'New conversation'}</span>
        <span class="meta">
          {labelled && c.project && <span class="project">{c.project}</span>}
          <span class="when">{ago(c.lastActivityAt, now)}</span>
          {unread && <span class="dot" data-testid="unread" aria-label="unread" />}
        </span>
      </button>
    </li>
  );
}

export function ConversationList() {
  const conversations = useStore((s) => s.conversations);
  const archived = useStore((s) => s.archived);
  const currentId = useStore((s) => s.currentId);
  const projects = useStore((s) => s.projects);
  const [project, setProject] = useState<string | undefined>();
  const now = useNow(true, 30_000);
  const chosen = project ?? projects?.defaultProject ?? projects?.projects[0]?.name;

  return (
    <div class="convlist">
      <div class="convlist-head">
        <span class="brand">Rudder</span>
        <button
          class="primary"
          data-testid="new-conversation"
          onClick={() => void newConversation(projects ? chosen : undefined)}
        >
          New
        </button>
      </div>
      {projects && projects.projects.length > 0 && (
        <label class="picker">
          <span>Project</span>
          <select
            data-testid="project-picker"
            value={chosen}
            onChange={(e) => setProject((e.target as HTMLSelectElement).value)}
          >
            {projects.projects.map((p) => (
              <option value={p.name} key={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <ul class="convs" data-testid="conversations">
        {conversations.map((c) => (
          <Item key={c.id} c={c} active={c.id === currentId} now={now} />
        ))}
      </ul>
      <div class="archived">
        <button
          class="quiet"
          data-testid="show-archived"
          aria-expanded={!!archived}
          onClick={() => void showArchived(!archived)}
        >
          {archived ? 'Hide archived' : 'Archived'}
        </button>
        {archived && (
          <ul class="convs" data-testid="archived-conversations">
            {archived.length === 0 && <li class="empty dim">Nothing archived.</li>}
            {archived.map((c) => (
              <Item key={c.id} c={c} active={c.id === currentId} now={now} />
            ))}
          </ul>
        )}
      </div>
      <Pairing />
    </div>
  );
}
