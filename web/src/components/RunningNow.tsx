/**
 * "Running now" on a new conversation: the Claude Code TUIs running in the person's tmux panes for the
 * conversation's project, on this machine or on the node it lives on (pane, state, directory, session, last
 * prompt), each with "Continue here", which opens a new conversation driving that pane; the claudes that
 * cannot be attached are listed greyed, with why and no button.
 */
import { useEffect } from 'preact/hooks';
import { continueHere, loadRunning } from '../running.js';
import { useStore } from '../state.js';
import type { RunningElsewhereItem, RunningPaneItem } from '../types.js';
import './RunningNow.css';

const STATE_TEXT: Record<RunningPaneItem['state'], string> = {
  ready: 'ready',
  busy: 'busy',
  menu: 'menu open',
  'not-ready': 'not ready',
};

const short = (id: string | undefined) => (id ? id.slice(0, 8) : 'no session yet');

function Pane({ project, pane }: { project: string; pane: RunningPaneItem }) {
  const attaching = useStore((s) => s.running?.attaching);
  const refused = useStore((s) => (s.running?.refused?.paneId === pane.paneId ? s.running.refused.text : undefined));
  return (
    <li class="now-item" data-testid="running-pane" data-pane={pane.label}>
      <div class="now-line">
        <span class="now-label">{pane.label}</span>
        <span class={`now-state ${pane.state}`} data-testid="running-state">
          {STATE_TEXT[pane.state]}
        </span>
        <span class="now-session" title={pane.sessionId}>
          {short(pane.sessionId)}
        </span>
      </div>
      <p class="now-dir">{pane.cwd}</p>
      {pane.lastPrompt && <p class="now-prompt">“{pane.lastPrompt}”</p>}
      <button
        type="button"
        class="primary"
        data-testid="continue-here"
        aria-label={`Continue here: pane ${pane.label}`}
        disabled={!!attaching}
        onClick={() => void continueHere(project, pane)}
      >
        {attaching === pane.paneId ? 'Opening…' : 'Continue here'}
      </button>
      {refused && (
        <p class="now-refused" role="alert" data-testid="running-refused">
          {refused}
        </p>
      )}
    </li>
  );
}

function Elsewhere({ r }: { r: RunningElsewhereItem }) {
  return (
    <li class="now-item off" data-testid="running-other">
      <div class="now-line">
        <span class="now-label">pid {r.pid}</span>
        <span class="now-session" title={r.sessionId}>
          {short(r.sessionId)}
        </span>
      </div>
      <p class="now-dir">{r.cwd}</p>
      <p class="now-why">Not attachable: {r.why}</p>
    </li>
  );
}

export function RunningNow({ project }: { project: string }) {
  const running = useStore((s) => (s.running?.project === project ? s.running : undefined));
  useEffect(() => void loadRunning(project), [project]);
  const list = running?.list;
  const panes = list?.running.filter((r): r is RunningPaneItem => r.attachable) ?? [];
  const others = list?.running.filter((r): r is RunningElsewhereItem => !r.attachable) ?? [];
  return (
    <section class="now" aria-labelledby="running-title" data-testid="running-now">
      <div class="now-head">
        <h2 id="running-title">Running now</h2>
        <button type="button" class="quiet" data-testid="running-refresh" onClick={() => void loadRunning(project)}>
          Refresh
        </button>
      </div>
      {running?.error ? (
        <p class="now-note">{running.error}</p>
      ) : !list ? (
        <p class="now-note">Looking…</p>
      ) : list.running.length === 0 ? (
        <p class="now-note" data-testid="running-none">
          No Claude Code runs in {project}
          {list.node ? ` on node ${list.node}` : ''} now (tmux servers looked in: {list.servers.join(', ')}).
        </p>
      ) : (
        <>
          <p class="now-note">
            Claude Code in your tmux panes{list.node ? ` on node ${list.node}` : ''}: continue one of them from here.
          </p>
          <ul class="now-list">
            {panes.map((p) => (
              <Pane key={`${p.socket}/${p.paneId}`} project={project} pane={p} />
            ))}
            {others.map((r) => (
              <Elsewhere key={r.pid} r={r} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
