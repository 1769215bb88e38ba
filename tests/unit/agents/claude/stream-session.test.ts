/**
 * The persistent session on the REAL pinned CLI against the mock Messages API.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeStreamSession } from '../../../../src/agents/claude/stream-session.js';
import { isRudderError, type RudderError } from '../../../../src/errors.js';
import { pidAlive, rigLaunch, trackSessions, untilEvent, waitUntil } from '../../../support/claude-rig.js';
import { type MockApi, startMockApi } from '../../../support/mock-anthropic.js';
import { recordTurns } from '../../../support/turn-outcomes.js';

let mock: MockApi;
const sessions = trackSessions<ClaudeStreamSession>();

beforeAll(async () => {
  mock = await startMockApi();
});
afterEach(() => {
  mock.setScript(undefined);
});
afterAll(async () => {
  await mock.close();
});

function newSession(extra: Parameters<typeof rigLaunch>[0]['launch'] = {}) {
  const saved: string[] = [];
  const launch = rigLaunch({ mockUrl: mock.url, launch: { onSessionId: (id) => saved.push(id), ...extra } });
  const session = new ClaudeStreamSession(launch);
  sessions.push(session);
  return { session, saved, launch };
}

const WRAPPED = (text: string) =>
  new RegExp(
    `<<<EXTERNAL_USER_MESSAGE id=[0-9a-f]+[^>]*>>>\\n${text.replace(/[[\]]/g, '\\$&')}\\n` +
      '<<<END_EXTERNAL_USER_MESSAGE id=[0-9a-f]+>>>',
  );

describe('claude stream session (real CLI)', () => {
  it('round-trips a turn with the result fields filled and the session id persisted', async () => {
    const { session, saved } = newSession();
    const turn = session.startTurn({ inputs: [{ id: 'm1', text: 'hello tag:m1' }] });
    const events: string[] = [];
    turn.onEvent((e) => events.push(e.type));
    const r = await turn.result;
    expect(r.text).toBe('ok tag:m1');
    expect(r.isError).toBe(false);
    expect(r.inputIds).toEqual(['m1']);
    expect(r.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.numTurns).toBe(1);
    expect(r.durationMs).toBeGreaterThan(0);
    expect(r.costUsd).toBeGreaterThan(0);
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.terminalReason).toBe('completed');
    expect(r.steered).toBe(0);
    expect(saved.at(-1)).toBe(r.sessionId);
    expect(session.sessionId()).toBe(r.sessionId);
    expect(events).toContain('text-delta');
    expect(events.at(-1)).toBe('result');
    // The user text reached the API inside the wrapper.
    expect(mock.mainRequests().at(-1)!.lastUserText).toMatch(WRAPPED('hello tag:m1'));
    expect(session.state()).toBe('idle');
    expect(pidAlive(session.pid()!)).toBe(true);
  });

  it('steers a message sent during a Bash sleep into the same turn', async () => {
    const { session } = newSession();
    const turns = recordTurns(session);
    const turn = session.startTurn({ inputs: [{ id: 'a', text: 'work [[bash:sleep 3]] tag:a' }] });
    await untilEvent(turn, 'tool-use');
    await new Promise((r) => setTimeout(r, 500));
    const steer = await session.steer({ id: 's', text: 'also do this tag:s' });
    expect(steer.outcome).toBe('steered');
    const r = await turn.result;
    expect(r.inputIds).toEqual(['a', 's']);
    expect(r.steered).toBe(1);
    expect(r.text).toBe('done ok tag:s');
    expect(turns).toHaveLength(1);
    const afterTool = mock
      .mainRequests()
      .filter((q) => q.afterTool)
      .at(-1)!;
    expect(afterTool.lastUserText).toMatch(WRAPPED('also do this tag:s'));
    expect(session.steeredCount()).toBe(1);
  });

  it('runs a message sent while plain text streams as its own turn, with both replies attributed', async () => {
    const { session } = newSession();
    const turns = recordTurns(session);
    const first = session.startTurn({ inputs: [{ id: 'p1', text: 'talk [[slow:2500]] tag:p1' }] });
    await untilEvent(first, 'text-delta');
    const steer = await session.steer({ id: 'p2', text: 'and this tag:p2' });
    expect(steer.outcome).toBe('ran-as-turn');
    const r1 = await first.result;
    expect(r1.inputIds).toEqual(['p1']);
    expect(r1.text).toContain('tag:p1');
    expect(r1.text).not.toContain('tag:p2');
    const second = steer.outcome === 'ran-as-turn' ? steer.turn : undefined;
    const r2 = await second!.result;
    expect(r2.inputIds).toEqual(['p2']);
    expect(r2.text).toBe('ok tag:p2');
    expect(turns.map((t) => t.turn)).toEqual([first, second]);
  });

  it('loses, duplicates and misattributes nothing when steers land at the result boundary (20 tries)', async () => {
    const { session } = newSession();
    const turns = recordTurns(session);
    const outcomes: string[] = [];
    let writtenMidTurn = 0;
    for (let i = 0; i < 20; i++) {
      const turn = session.startTurn({ inputs: [{ id: `a${i}`, text: `quick tag:a${i}` }] });
      // Vary the moment: right at the first text, or a few ms after it, around the result frame.
      await untilEvent(turn, 'text');
      if (i % 4) await new Promise((r) => setTimeout(r, (i % 4) * 3));
      // No await between the check and the write: the steer was handed over while this turn ran.
      const running = session.currentTurn() === turn;
      const steer = session.steer({ id: `b${i}`, text: `boundary tag:b${i}` });
      if (running && steer.written) writtenMidTurn++;
      const s = await steer;
      outcomes.push(s.outcome);
      await waitUntil(() => session.state() === 'idle', 20_000);
    }
    await waitUntil(() => turns.every((t) => t.result || t.error));
    const answered = turns.flatMap((t) => t.result?.inputIds ?? []);
    const expected = Array.from({ length: 20 }, (_, i) => [`a${i}`, `b${i}`]).flat();
    expect([...answered].sort()).toEqual([...expected].sort()); // each exactly once
    expect(turns.every((t) => t.error === undefined)).toBe(true);
    for (const t of turns) {
      // A reply only mentions inputs it is attributed to.
      const tags = [...t.result!.text.matchAll(/tag:(\w+)/g)].map((m) => m[1]);
      for (const tag of tags) expect(t.result!.inputIds).toContain(tag);
      expect(t.result!.inputIds.length).toBeGreaterThan(0);
    }
    expect(outcomes.every((o) => o === 'steered' || o === 'ran-as-turn')).toBe(true);
    // The race is exercised: some steers reached the CLI before their turn's result.
    expect(writtenMidTurn, `outcomes: ${outcomes.join(' ')}`).toBeGreaterThan(0);
  });

  it('interrupts a tool within 2 s; the process lives and the next turn sees the history', async () => {
    const { session } = newSession();
    const turn = session.startTurn({ inputs: [{ id: 'i1', text: 'long [[bash:echo start; sleep 30]] tag:i1' }] });
    await untilEvent(turn, 'tool-use');
    await new Promise((r) => setTimeout(r, 500)); // let the tool start running
    const pid = session.pid()!;
    const t0 = Date.now();
    await session.interrupt();
    const r = await turn.result;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.interrupted).toBe(true);
    expect(r.terminalReason).toBe('aborted_tools');
    expect(session.pid()).toBe(pid);
    expect(pidAlive(pid)).toBe(true);
    const next = await session.startTurn({ inputs: [{ id: 'i2', text: 'after tag:i2' }] }).result;
    expect(next.text).toContain('ok tag:i2');
    expect(mock.mainRequests().at(-1)!.historyText).toContain('tag:i1');
  });

  it('reports the unanswered input after kill -9 mid-turn, then resumes the same session', async () => {
    const { session, saved } = newSession();
    const first = await session.startTurn({ inputs: [{ id: 'k0', text: 'remember tag:k0' }] }).result;
    const turn = session.startTurn({ inputs: [{ id: 'k1', text: 'slow [[bash:echo start; sleep 30]] tag:k1' }] });
    await untilEvent(turn, 'tool-use');
    process.kill(session.pid()!, 'SIGKILL');
    const err = await turn.result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isRudderError(err, 'AGENT_CRASHED')).toBe(true);
    expect((err as RudderError).context.unanswered).toEqual(['k1']);
    expect(session.state()).toBe('dead');
    const again = await session.startTurn({ inputs: [{ id: 'k2', text: 'again tag:k2' }] }).result;
    expect(again.sessionId).toBe(first.sessionId);
    expect(saved.at(-1)).toBe(first.sessionId);
    expect(mock.mainRequests().at(-1)!.historyText).toContain('tag:k0');
  });

  it('types a 429 in API-key style as a rate limit', async () => {
    const { session } = newSession();
    const err = await session
      .startTurn({ inputs: [{ id: 'r1', text: 'go [[429:apikey]]' }] })
      .result.catch((e: unknown) => e);
    expect(isRudderError(err, 'AGENT_RATE_LIMITED')).toBe(true);
    expect((err as RudderError).context.unanswered).toEqual(['r1']);
    expect((err as RudderError).context.apiErrorStatus).toBe(429);
    // The process stays usable.
    expect((await session.startTurn({ inputs: [{ id: 'r2', text: 'fine tag:r2' }] }).result).text).toBe('ok tag:r2');
  });

  it('types a 429 in subscription style as a rate limit with resetsAt', async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 7200;
    mock.setScript((req) =>
      !req.side && /\[\[429:subscription\]\]/.test(req.lastUserText)
        ? { kind: 'error', status: 429, style: 'subscription', resetsAt }
        : undefined,
    );
    const { session } = newSession();
    (session as unknown as { launch: { env: Record<string, string> } }).launch.env = {
      ...(session as unknown as { launch: { env: Record<string, string> } }).launch.env,
      CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-test',
    };
    delete (session as unknown as { launch: { env: Record<string, string> } }).launch.env.ANTHROPIC_API_KEY;
    const err = await session
      .startTurn({ inputs: [{ id: 'r3', text: 'go [[429:subscription]]' }] })
      .result.catch((e: unknown) => e);
    expect(isRudderError(err, 'AGENT_RATE_LIMITED')).toBe(true);
    expect((err as RudderError).context.resetsAt).toBe(resetsAt * 1000);
    expect((err as RudderError).message).toContain("You've hit your");
  });
});
