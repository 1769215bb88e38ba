/**
 * The services as buildServices wires them (src/gateway/services.ts), on a real store with the
 * scripted agent: one permission request flows from the turn to the desk, to the step log and the
 * page's events, and one answer flows back to the agent as its option id; a status report reads them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BusEvent } from '../../../src/gateway/bus.js';
import { waitUntil } from '../../support/claude-rig.js';
import type { FakeWireAnswer } from '../../support/fake-agent.js';
import { type LaneRig, laneRig } from '../../support/lane-rig.js';

let rig: LaneRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const ask = {
  requestId: 'req-1',
  toolName: 'Bash',
  input: { command: 'make' },
  options: [
    { id: 'allow', label: 'Allow' },
    { id: 'deny', label: 'Deny' },
  ],
};

describe('the wired services', () => {
  it('a permission request reaches the step log and the page, and the answer reaches the agent once', async () => {
    const answers: FakeWireAnswer[] = [];
    const r = (rig = await laneRig({}, { script: () => [{ ask }], onDecision: (_id, d) => answers.push(d) }));
    const events: BusEvent[] = [];
    r.s.bus.subscribe('web:p', (e) => events.push(e));
    const m = await r.send('p', 'build it');
    await waitUntil(() => r.s.desk.count() === 1);
    expect(r.s.steps.running('web:p')?.steps.map((s) => s.kind)).toEqual(['permission']);
    expect(events.filter((e) => e.type === 'permission').map((e) => e.data)).toEqual([
      { requestId: 'req-1', toolName: 'Bash', input: { command: 'make' }, options: ask.options },
    ]);
    expect(r.s.status.report().steering.on).toBe(true);

    expect(r.s.api.answerPermission('p', 'req-1', 'allow').ok).toBe(true);
    expect(r.s.api.answerPermission('p', 'req-1', 'allow').ok).toBe(false);
    await r.until(m.messageId, 'answered');
    expect(answers).toEqual([{ allow: true }]);
    const step = r.s.steps.history('web:p').turns[0]!.steps[0]!;
    expect(step).toMatchObject({
      kind: 'permission',
      status: 'answered',
      answer: { optionId: 'allow', by: 'web:owner' },
    });
    expect(events.filter((e) => e.type === 'permission').at(-1)?.data).toEqual({
      requestId: 'req-1',
      resolved: 'allow',
      by: 'web:owner',
      delivered: true,
    });
  });
});
