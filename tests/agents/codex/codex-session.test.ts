/**
 * The Codex session on the REAL pinned codex binary against the mock Responses API.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Turn, TurnResult } from '../../../src/agents/session.js';
import type { RudderError } from '../../../src/errors.js';
import { pidAlive, untilEvent } from '../../support/claude-rig.js';
import { codexLaunch, trackCodex } from '../../support/codex-rig.js';
import { historyCopies, type MockResponses, startMockResponses, timesSent } from '../../support/mock-responses.js';

let mock: MockResponses;
const rig = trackCodex();

beforeAll(async () => {
  mock = await startMockResponses();
});
afterEach(() => mock.setScript(undefined));
afterAll(async () => {
  await mock.close();
});

function newSession(extra: Parameters<typeof codexLaunch>[0]['launch'] = {}) {
  const saved: string[] = [];
  const launch = codexLaunch({ mockUrl: mock.url, launch: { onSessionId: (id) => saved.push(id), ...extra } });
  return { session: rig.session(launch), saved, launch };
}

/** Every turn the session runs, with its settled outcome. */
function recordTurns(session: { onTurn(l: (t: Turn) => void): () => void }) {
  const outcomes: Array<{ turn: Turn; result?: TurnResult; error?: RudderError }> = [];
  session.onTurn((turn) => {
    const rec: (typeof outcomes)[number] = { turn };
    outcomes.push(rec);
    turn.result.then(
      (r) => (rec.result = r),
      (e) => (rec.error = e),
    );
  });
  return outcomes;
}

const WRAPPED = (text: string) =>
  new RegExp(
    `<<<EXTERNAL_USER_MESSAGE id=[0-9a-f]+[^>]*>>>\\n${text.replace(/[[\]]/g, '\\$&')}\\n<<<END_EXTERNAL_USER_MESSAGE`,
  );

describe('codex session (real codex)', () => {
  it('round-trips a turn: streamed text, usage, the thread id persisted, the input wrapped', async () => {
    const { session, saved } = newSession();
    const turn = session.startTurn({ inputs: [{ id: 'm1', text: 'hello tag:m1' }] });
    const events: string[] = [];
    turn.onEvent((e) => events.push(e.type));
    const r = await turn.result;
    expect(r.text).toBe('ok tag:m1');
    expect(r.isError).toBe(false);
    expect(r.inputIds).toEqual(['m1']);
    expect(r.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.usage.outputTokens).toBeGreaterThan(0);
    expect(r.usage.inputTokens + r.usage.cacheReadInputTokens).toBe(40);
    expect(r.numTurns).toBe(1);
    expect(r.steered).toBe(0);
    expect(saved.at(-1)).toBe(r.sessionId);
    expect(session.sessionId()).toBe(r.sessionId);
    expect(events[0]).toBe('started');
    expect(events).toContain('text-delta');
    expect(events.at(-1)).toBe('result');
    const req = mock.requests.find((q) => q.threadId === r.sessionId)!;
    expect(req.lastUserText).toMatch(WRAPPED('hello tag:m1'));
    // Rudder's external-content rules reach the model as developer instructions.
    expect(JSON.stringify(req.input)).toContain('EXTERNAL_USER_MESSAGE id=...');
    expect(session.state()).toBe('idle');
    expect(pidAlive(session.pid()!)).toBe(true);
    expect(timesSent(mock.requests, 'hello tag:m1')).toBe(1);
  });
});
