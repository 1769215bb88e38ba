/**
 * The Schedules view: each schedule (its cron line and zone, next run, paused or not) with Run now, and its
 * newest runs: ran, quiet, skipped, missed, stopped at its timeout, failed; a run's conversation opens from it.
 */
import type { RunView, ScheduleView } from '../../../src/http/wire.js';
import { openRun, runScheduleNow, toggleSchedules } from '../schedules.js';
import { useStore } from '../state.js';
import './Schedules.css';

const OUTCOME: Record<RunView['outcome'], string> = {
  running: 'running',
  ran: 'ran',
  quiet: 'quiet',
  skipped: 'skipped',
  missed: 'missed',
  timed_out: 'timed out',
  failed: 'failed',
  stopped: 'stopped',
};

const when = (ms: number) =>
  new Date(ms).toLocaleString(undefined, {
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });

function Run({ r }: { r: RunView }) {
  const count = r.outcome === 'missed' && (r.missedCount ?? 1) > 1 ? ` ×${r.missedCount}` : '';
  const cost = r.costUsd === null ? '' : ` · $${r.costUsd.toFixed(2)}`;
  const label = `${when(r.slot)} · ${OUTCOME[r.outcome]}${count}${cost}`;
  return (
    <li class={`run ${r.outcome}`} data-testid="schedule-run" data-outcome={r.outcome}>
      {r.pageKey ? (
        <button type="button" class="quiet" onClick={() => openRun(r.pageKey!)}>
          {label}
        </button>
      ) : (
        <span>{label}</span>
      )}
    </li>
  );
}

function Schedule({ s, runs }: { s: ScheduleView; runs: RunView[] }) {
  // In the device's zone and format, as the runs below (the schedule's own zone is named beside its line).
  const first = s.next[0];
  const next = s.paused ? 'paused' : !s.enabled ? 'disabled' : first === undefined ? 'no next run' : when(first);
  return (
    <section class="schedule" data-testid="schedule" data-name={s.name}>
      <header>
        <div>
          <h3>{s.name}</h3>
          <p class="dim">
            <code>{s.cron}</code> ({s.timezone}){s.quiet ? ' · heartbeat' : ''}
          </p>
          <p class="dim" data-testid="schedule-next">
            next: {next}
          </p>
        </div>
        <button type="button" data-testid="run-now" onClick={() => void runScheduleNow(s.name)}>
          Run now
        </button>
      </header>
      {runs.length ? (
        <ul class="runs">
          {runs.map((r) => (
            <Run key={r.slot} r={r} />
          ))}
        </ul>
      ) : (
        <p class="dim">No run yet.</p>
      )}
    </section>
  );
}

export function Schedules() {
  const view = useStore((s) => s.schedules);
  const list = view?.list;
  return (
    <div class="schedules" data-testid="schedules">
      <div class="schedules-head">
        <h2>Schedules</h2>
        <button type="button" class="quiet" data-testid="close-schedules" onClick={() => toggleSchedules(false)}>
          Close
        </button>
      </div>
      {!list && <p class="dim placeholder">Loading…</p>}
      {list && !list.schedules.length && (
        <p class="dim placeholder">No schedules. Add one in the config's "schedules", or with /schedule add.</p>
      )}
      {list?.schedules.map((s) => (
        <Schedule key={s.name} s={s} runs={view?.runs[s.name] ?? []} />
      ))}
      {list?.problems.map((p) => (
        <p class="dim" key={p.name}>
          {p.name}: left out ({p.why})
        </p>
      ))}
    </div>
  );
}
