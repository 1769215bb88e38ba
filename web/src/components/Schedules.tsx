/**
 * The Schedules view: each schedule (its line, cron line and zone, next run, paused or not) with Run now, Pause or
 * Resume, and, for one kept in Rudder's store, Edit and Remove (after a confirmation); a config file's schedule is
 * changed there, and says so. Its newest runs: ran, quiet, skipped, missed, stopped at its timeout, failed; a run's
 * conversation opens from it. New schedule opens the form; what each action came to shows at the top.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RunView, ScheduleView } from '../../../src/http/wire.js';
import {
  openRun,
  openScheduleForm,
  pauseSchedule,
  removeSchedule,
  runScheduleNow,
  toggleSchedules,
} from '../schedules.js';
import { useStore } from '../state.js';
import { ScheduleForm } from './ScheduleForm.js';
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

/** Remove, asked once more: the schedule stops and its runs' record goes; the conversations it ran in stay. */
function RemoveConfirm({ name, busy, done }: { name: string; busy: boolean; done: () => void }) {
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => keep.current?.focus(), []);
  return (
    <div class="schedule-confirm" data-testid="remove-confirm">
      <p>
        <strong>Remove {name}?</strong> It stops running and the record of its runs goes; the conversations it ran in
        stay.
      </p>
      <div class="row">
        <button
          type="button"
          class="danger"
          data-testid="remove-yes"
          disabled={busy}
          onClick={() => void removeSchedule(name)}
        >
          Remove {name}
        </button>
        <button type="button" ref={keep} data-testid="remove-no" onClick={done}>
          Keep it
        </button>
      </div>
    </div>
  );
}

/** Its buttons stay enabled while an action runs (disabling one drops the keyboard focus); a second press waits. */
function Actions({ s }: { s: ScheduleView }) {
  const busy = useStore((st) => st.schedules?.acting === s.name);
  const [confirming, setConfirming] = useState(false);
  const kept = s.origin === 'kept';
  return (
    <>
      <div class="schedule-actions">
        <button type="button" data-testid="run-now" onClick={() => void runScheduleNow(s.name)}>
          Run now
        </button>
        {s.paused ? (
          <button type="button" data-testid="resume" onClick={() => void pauseSchedule(s.name, false)}>
            Resume
          </button>
        ) : (
          <button type="button" data-testid="pause" onClick={() => void pauseSchedule(s.name, true)}>
            Pause
          </button>
        )}
        {kept && (
          <button type="button" data-testid="edit" onClick={() => openScheduleForm(s.name)}>
            Edit
          </button>
        )}
        {kept && (
          <button
            type="button"
            class="danger-outline"
            data-testid="remove"
            aria-expanded={confirming}
            onClick={() => setConfirming(true)}
          >
            Remove…
          </button>
        )}
      </div>
      {!kept && (
        <p class="dim" data-testid="schedule-config-note">
          From the config file: change or remove it there.
        </p>
      )}
      {confirming && <RemoveConfirm name={s.name} busy={busy} done={() => setConfirming(false)} />}
    </>
  );
}

/** Where a run works and where its answer goes. */
function target(s: ScheduleView): string {
  const where = s.project ? `project ${s.project}` : '';
  const to = s.deliver ? `to ${s.deliver}` : '';
  return [where, `${s.session} session`, to].filter(Boolean).join(' · ');
}

function Schedule({ s, runs }: { s: ScheduleView; runs: RunView[] }) {
  // In the device's zone and format, as the runs below (the schedule's own zone is named beside its line).
  const first = s.next[0];
  const next = s.paused ? 'paused' : !s.enabled ? 'disabled' : first === undefined ? 'no next run' : when(first);
  const id = `schedule-${s.name}`;
  return (
    <section class="schedule" data-testid="schedule" data-name={s.name} aria-labelledby={id}>
      <h3 id={id}>{s.name}</h3>
      <p class="dim">
        {s.line !== s.cron && `${s.line} · `}
        <code>{s.cron}</code> ({s.timezone}){s.quiet ? ' · heartbeat' : ''}
      </p>
      <p class="dim">{target(s)}</p>
      <p class="dim" data-testid="schedule-next" data-paused={s.paused ? 'yes' : 'no'}>
        next: {next}
      </p>
      <Actions s={s} />
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
  const form = view?.form;
  const editing = form?.edit === undefined ? undefined : list?.schedules.find((s) => s.name === form.edit);
  const newButton = useRef<HTMLButtonElement>(null);
  const hadForm = useRef(false);
  useEffect(() => {
    // The form closed (saved or cancelled): the keyboard goes on from New schedule, not from the page's top.
    if (hadForm.current && !form) newButton.current?.focus();
    hadForm.current = !!form;
  }, [form]);
  return (
    <div class="schedules" data-testid="schedules">
      <div class="schedules-head">
        <h2>Schedules</h2>
        <div class="row">
          {!form && (
            <button
              type="button"
              class="primary"
              ref={newButton}
              data-testid="new-schedule"
              onClick={() => openScheduleForm()}
            >
              New schedule
            </button>
          )}
          <button type="button" class="quiet" data-testid="close-schedules" onClick={() => toggleSchedules(false)}>
            Close
          </button>
        </div>
      </div>
      {/* Stays in the page so that a screen reader reads each answer as it comes. */}
      <div role="status" class="schedule-answer-slot">
        {view?.answer && (
          <p class={`schedule-answer${view.answer.ok ? '' : ' failed'}`} data-testid="schedule-answer">
            {view.answer.text}
          </p>
        )}
      </div>
      {form && <ScheduleForm key={form.edit ?? ''} edit={editing} />}
      {!list && <p class="dim placeholder">Loading…</p>}
      {list && !list.schedules.length && (
        <p class="dim placeholder">
          No schedules yet. New schedule adds one; so do /schedule add in a chat and the config's "schedules".
        </p>
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
