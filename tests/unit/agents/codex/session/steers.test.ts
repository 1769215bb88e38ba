/**
 * A steer written to codex in the instant its turn ends, on the REAL codex binary against the mock
 * Responses API: codex answers turn/steer only after the turn/completed Rudder reads first. Until
 * that answer the session is busy (the gateway must not take the message for lost and hand it over
 * again), then the message runs as the next turn, once, saying why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SteerResult } from '../../../../../src/agents/session.js';
import { codexLaunch, trackCodex } from '../../../../support/codex-rig.js';
import { historyCopies, type MockResponses, startMockResponses } from '../../../../support/mock-responses.js';

let mock: MockResponses;
const rig = trackCodex();

beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  await mock.close();
});

/** Holds the event loop, as a loaded machine does: what codex writes meanwhile is read only after it. */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe('a steer in the instant the turn ends (real codex)', () => {
  it('keeps the session busy until codex answers it, then runs it as the next turn once', async () => {
    const session = rig.session(codexLaunch({ mockUrl: mock.url }));
    // A first turn loads the thread, so the next one ends quickly.
    await session.startTurn({ inputs: [{ id: 'w', text: 'warm tag:w' }] }).result;
    for (const stallMs of [1000, 3000, 6000]) {
      const id = `a${stallMs}`;
      let steer: Promise<SteerResult> | undefined;
      mock.onCompleted((q) => {
        if (!q.userTexts.some((t) => t.includes(`tag:${id}`))) return;
        mock.onCompleted(undefined);
        // Codex ends its turn while this process, stalled, has not read that yet; the steer goes after it.
        stall(stallMs);
        steer = session.steer({ id: `s${stallMs}`, text: `late tag:s${stallMs}` });
      });
      const first = await session.startTurn({ inputs: [{ id, text: `first tag:${id}` }] }).result;
      expect(steer).toBeDefined();
      if (first.inputIds.includes(`s${stallMs}`)) continue; // codex took it in after all: try a longer stall
      // The turn is over, the steer's fate is not known yet: busy, so nothing hands it over a second time.
      expect(session.state()).toBe('busy');
      const r = await steer!;
      expect(r).toMatchObject({ outcome: 'ran-as-turn', why: 'the turn had ended before Codex took it in' });
      const next = await (r as Extract<SteerResult, { turn: unknown }>).turn.result;
      expect(next.inputIds).toEqual([`s${stallMs}`]);
      expect(next.text).toBe(`ok tag:s${stallMs}`);
      const last = mock.requests.filter((q) => q.threadId === next.sessionId).at(-1)!;
      expect(historyCopies(last, `late tag:s${stallMs}`)).toBe(1);
      expect(session.state()).toBe('idle');
      return;
    }
    throw new Error('codex took the steer into the turn every time: the race was never hit');
  });
});
