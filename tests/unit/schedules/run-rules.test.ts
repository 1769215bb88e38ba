/**
 * The rules of one run: a slot whose previous run still runs is skipped and said so; a run past timeoutMinutes is
 * stopped and reported; a quiet schedule's reply that is only the quiet word is not delivered.
 */
import { describe, expect, it } from 'vitest';
import { overlapDecision } from '../../../src/schedules/overlap.js';
import { isQuietReply, QUIET_WORD, quietPrompt } from '../../../src/schedules/quiet.js';
import { checkTimeout, deadlineOf } from '../../../src/schedules/timeout.js';

const at = (iso: string) => Date.parse(iso);

describe('overlap', () => {
  it('runs a slot when nothing of the schedule runs', () => {
    expect(overlapDecision('ci', at('2025-01-01T07:00:00Z'), undefined, 'UTC')).toEqual({ kind: 'run' });
  });

  it('skips a slot while the previous run still runs, naming both in the schedule zone', () => {
    const running = { slot: at('2025-01-01T06:00:00Z'), startedAt: at('2025-01-01T06:00:02Z') };
    const d = overlapDecision('ci', at('2025-01-01T07:00:00Z'), running, 'Europe/Bucharest');
    expect(d).toEqual({
      kind: 'skip',
      code: 'SCHEDULE_OVERLAP',
      running,
      text:
        'Schedule ci: the run of Wed 2025-01-01 09:00 GMT+02:00 was skipped, because the run of ' +
        'Wed 2025-01-01 08:00 GMT+02:00 (started Wed 2025-01-01 08:00 GMT+02:00) is still running.',
    });
  });
});

describe('timeout', () => {
  const started = at('2025-01-01T07:00:00Z');

  it('puts the deadline timeoutMinutes after the start', () => {
    expect(deadlineOf(started, 30)).toBe(at('2025-01-01T07:30:00Z'));
    expect(deadlineOf(started, 0.5)).toBe(at('2025-01-01T07:00:30Z'));
  });

  it('lets a run go on before its deadline and stops it at the deadline', () => {
    expect(checkTimeout('ci', started, 30, at('2025-01-01T07:29:59Z'))).toEqual({ kind: 'within', leftMs: 1000 });
    expect(checkTimeout('ci', started, 30, at('2025-01-01T07:30:00Z'))).toEqual({
      kind: 'overdue',
      code: 'SCHEDULE_TIMEOUT',
      text: 'Schedule ci: the run was stopped after 30 minutes (its timeoutMinutes).',
    });
    expect(checkTimeout('ci', started, 1, at('2025-01-01T08:00:00Z'))).toMatchObject({
      text: expect.stringContaining('after 1 minute '),
    });
  });
});

describe('quiet word', () => {
  it.each([
    QUIET_WORD,
    'NOTHING_TO_REPORT.',
    '  nothing_to_report  \n',
    'Nothing to report.',
    'nothing-to-report!',
    '**NOTHING_TO_REPORT**',
    '`NOTHING_TO_REPORT`',
    '"NOTHING_TO_REPORT"',
    '_Nothing to report_',
    '«NOTHING_TO_REPORT».',
    'ＮＯＴＨＩＮＧ_ＴＯ_ＲＥＰＯＲＴ', // full-width, as NFKC reads it
  ])('"%s" is only the quiet word', (reply) => {
    expect(isQuietReply(reply)).toBe(true);
  });

  it.each([
    '',
    'NOTHING',
    'NOTHING_TO_REPORT_YET',
    'NOTHING_TO_REPORT, but the disk is 91% full.',
    'NOTHING_TO_REPORT\n\nCI is red on main.',
    'There is NOTHING_TO_REPORT.',
    'All good: NOTHING_TO_REPORT',
    'Nothing to report except one failing test.',
    'nothingtoreport',
  ])('"%s" is a reply and is delivered', (reply) => {
    expect(isQuietReply(reply)).toBe(false);
  });

  it('asks the agent for the word after the prompt', () => {
    const p = quietPrompt('Check the CI of main.\n');
    expect(p.startsWith('Check the CI of main.\n\nIf everything is as it should be')).toBe(true);
    expect(p).toContain(`answer with exactly ${QUIET_WORD} and nothing else`);
  });
});
