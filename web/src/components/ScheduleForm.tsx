/**
 * The form of a schedule kept in Rudder's store: a new one, or one to change (filled with it). Its fields are the
 * config's: when (a cron line or a plain form), time zone (the device's by default), prompt, project, deliver,
 * session, timeout. What was typed stays until a save is taken; a refusal shows the gateway's reason beside it.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ScheduleBody, ScheduleView } from '../../../src/http/wire.js';
import { closeScheduleForm, saveSchedule } from '../schedules.js';
import { useStore } from '../state.js';
import './ScheduleForm.css';

interface Draft {
  name: string;
  when: string;
  timezone: string;
  prompt: string;
  /** undefined: the schedule's own project, else the gateway's default one. */
  project?: string;
  deliver: string;
  session: 'fresh' | 'continue';
  timeout: string;
}

const deviceZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

let zones: string[] | undefined;
/** The zones the browser knows, offered as the time zone is typed. */
const knownZones = () => (zones ??= Intl.supportedValuesOf('timeZone'));

function draftOf(edit: ScheduleView | undefined): Draft {
  if (!edit)
    return { name: '', when: '', timezone: deviceZone(), prompt: '', deliver: '', session: 'fresh', timeout: '' };
  return {
    name: edit.name,
    when: edit.line,
    timezone: edit.timezone,
    prompt: edit.prompt,
    project: edit.project ?? '',
    deliver: edit.deliver ?? '',
    session: edit.session,
    timeout: String(edit.timeoutMinutes),
  };
}

/** The schedule as the gateway takes it; what the form does not show is kept as it was. */
function bodyOf(d: Draft, project: string, edit: ScheduleView | undefined): ScheduleBody {
  const timeout = d.timeout.trim();
  return {
    cron: d.when.trim(),
    prompt: d.prompt,
    ...(d.timezone.trim() ? { timezone: d.timezone.trim() } : {}),
    ...(project ? { project } : {}),
    ...(d.deliver.trim() ? { deliver: d.deliver.trim() } : {}),
    session: d.session,
    ...(timeout ? { timeoutMinutes: Number(timeout) } : {}),
    ...(edit ? { quiet: edit.quiet, catchUpMinutes: edit.catchUpMinutes, enabled: edit.enabled } : {}),
  };
}

const value = (e: Event) => (e.target as HTMLInputElement).value;

const DELIVER_HINT =
  "A conversation that gets each run's answer, as <channel>:<chat id>. Without it, the page's conversations have them.";

type TextKey = 'name' | 'when' | 'timezone' | 'deliver' | 'timeout';

/** One line of the draft: its label, the input (`sf-<key>`, typed as it is, no corrections) and a hint under it. */
function Field({
  field,
  label,
  hint,
  draft,
  put,
  ...input
}: {
  field: TextKey;
  label: string;
  hint?: ComponentChildren;
  draft: Draft;
  put: (change: Partial<Draft>) => void;
} & Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onInput' | 'id'>) {
  const id = `sf-${field}`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        data-testid={id}
        autocomplete="off"
        autocapitalize="none"
        spellcheck={false}
        {...(hint ? { 'aria-describedby': `${id}-hint` } : {})}
        {...input}
        value={draft[field]}
        onInput={(e) => put({ [field]: value(e) })}
      />
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
    </div>
  );
}

export function ScheduleForm({ edit }: { edit?: ScheduleView }) {
  const form = useStore((s) => s.schedules?.form);
  const projects = useStore((s) => s.schedules?.projects);
  const [d, setDraft] = useState(() => draftOf(edit));
  const put = (change: Partial<Draft>) => setDraft((was) => ({ ...was, ...change }));
  const bind = { draft: d, put };
  const ref = useRef<HTMLFormElement>(null);
  // The form opens at the top of the view, under its heading: the view goes back there (Edit is pressed further down).
  useEffect(() => {
    ref.current?.closest('.schedules')?.scrollTo({ top: 0 });
    ref.current?.querySelector<HTMLElement>('input, textarea')?.focus({ preventScroll: true });
  }, []);
  const project = d.project ?? projects?.defaultProject ?? projects?.names[0] ?? '';
  const names = projects?.names ?? [];
  const choices = project && !names.includes(project) ? [project, ...names] : names;
  return (
    <form
      ref={ref}
      class="schedule-form"
      data-testid="schedule-form"
      aria-labelledby="sf-title"
      onSubmit={(e) => {
        e.preventDefault();
        void saveSchedule(d.name.trim(), bodyOf(d, project, edit));
      }}
    >
      <h3 id="sf-title">{edit ? `Change ${edit.name}` : 'New schedule'}</h3>
      {!edit && (
        <Field
          field="name"
          label="Name"
          required
          hint='Letters, digits, ".", "_" or "-": it names the schedule in the chats (/schedule run …).'
          {...bind}
        />
      )}
      <Field
        field="when"
        label="When"
        required
        placeholder="every day at 07:00 · 0 7 * * 1-5"
        hint={
          <>
            A cron line (<code>0 7 * * 1-5</code>) or a plain form: every day at 07:00, weekdays at 18:30, every 2h.
          </>
        }
        {...bind}
      />
      <Field field="timezone" label="Time zone" list="sf-zones" {...bind} />
      <datalist id="sf-zones">
        {knownZones().map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <div class="field">
        <label for="sf-prompt">Prompt</label>
        <textarea
          id="sf-prompt"
          data-testid="sf-prompt"
          required
          rows={4}
          placeholder="What the agent is asked at each run"
          value={d.prompt}
          onInput={(e) => put({ prompt: value(e) })}
        />
      </div>
      <div class="pair">
        <div class="field">
          <label for="sf-project">Project</label>
          <select
            id="sf-project"
            data-testid="sf-project"
            value={project}
            onChange={(e) => put({ project: (e.target as HTMLSelectElement).value })}
          >
            {choices.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
            <option value="">None: the deliver conversation's</option>
          </select>
        </div>
        <Field
          field="timeout"
          label="Timeout, minutes"
          type="number"
          inputMode="numeric"
          min={1}
          max={1440}
          placeholder="30"
          {...bind}
        />
      </div>
      <Field field="deliver" label="Deliver to (optional)" placeholder="telegram:12345" hint={DELIVER_HINT} {...bind} />
      <fieldset class="field session">
        <legend>Session</legend>
        {(['fresh', 'continue'] as const).map((s) => (
          <label key={s}>
            <input
              type="radio"
              name="sf-session"
              value={s}
              data-testid={`sf-session-${s}`}
              checked={d.session === s}
              onChange={() => put({ session: s })}
            />
            {s === 'fresh' ? 'Fresh: each run starts a new session' : 'Continue: each run goes on where the last left'}
          </label>
        ))}
      </fieldset>
      <div role="alert" class="form-error" data-testid="schedule-form-error">
        {form?.error}
      </div>
      <div class="row">
        <button type="submit" class="primary" data-testid="schedule-save" disabled={!!form?.saving}>
          {form?.saving ? 'Saving…' : 'Save'}
        </button>
        <button type="button" data-testid="schedule-cancel" onClick={closeScheduleForm}>
          Cancel
        </button>
      </div>
    </form>
  );
}
