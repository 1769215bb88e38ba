/**
 * A failed model request as the person sees it, on the REAL pinned CLI with its retries on: each
 * retry is one status that updates (the same key) and names the cause, and the failure that ends
 * the turn says the cause and the fix once.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeStreamSession } from '../../../../src/agents/claude/stream-session.js';
import type { TurnEvent } from '../../../../src/agents/session.js';
import { isRudderError, type RudderError } from '../../../../src/errors.js';
import { rigLaunch, trackSessions } from '../../../support/claude-rig.js';
import { type MockApi, startMockApi } from '../../../support/mock-anthropic.js';

let mock: MockApi;
const sessions = trackSessions<ClaudeStreamSession>();

beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});

function session(env: Record<string, string>) {
  const s = new ClaudeStreamSession(rigLaunch({ mockUrl: mock.url, env: { CLAUDE_CODE_MAX_RETRIES: '2', ...env } }));
  sessions.push(s);
  return s;
}

async function runTurn(s: ClaudeStreamSession, text: string) {
  const turn = s.startTurn({ inputs: [{ id: 'm1', text }] });
  const events: TurnEvent[] = [];
  turn.onEvent((e) => events.push(e));
  const outcome = await turn.result.then(
    (r) => ({ result: r, error: undefined }),
    (e: RudderError) => ({ result: undefined, error: e }),
  );
  // Events are delivered in a microtask after the result settles.
  await new Promise((r) => setTimeout(r, 50));
  const statuses = events.filter((e): e is Extract<TurnEvent, { type: 'status' }> => e.type === 'status');
  const texts = events.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.text : ''));
  return { ...outcome, statuses, texts };
}

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('API retries (real CLI)', () => {
  it('names an unresolvable host in every retry line, under one key, and in the failure with its fix', async () => {
    const s = session({ ANTHROPIC_BASE_URL: 'http://no-such-host.invalid' });
    const { error, statuses, texts } = await runTurn(s, 'hello');
    // The CLI's synthetic "API Error: …" message is not shown as the agent's text: the error says it once.
    expect(texts).toEqual([]);
    expect(statuses.map((e) => e.message)).toEqual([
      expect.stringMatching(/^retrying 1\/2 in \d+ s: cannot reach no-such-host\.invalid \((ENOTFOUND|EAI_AGAIN)\)/),
      expect.stringMatching(/^retrying 2\/2 in \d+ s: cannot reach no-such-host\.invalid \((ENOTFOUND|EAI_AGAIN)\)/),
    ]);
    expect(new Set(statuses.map((e) => e.key))).toEqual(new Set(['api-retry']));
    expect(isRudderError(error, 'AGENT_API_ERROR')).toBe(true);
    expect(error!.message).toMatch(
      /Cannot reach no-such-host\.invalid \(ENOTFOUND\).*Check the host name in ANTHROPIC_BASE_URL/,
    );
    expect(error!.context).toMatchObject({ cause: 'dns', code: 'ENOTFOUND' });
  });

  it('names a refused connection', async () => {
    const port = await closedPort();
    const s = session({ ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` });
    const { error, statuses } = await runTurn(s, 'hello');
    expect(statuses).toHaveLength(2);
    for (const st of statuses) expect(st.message).toContain(`127.0.0.1:${port} refused the connection (ECONNREFUSED)`);
    expect(error!.context).toMatchObject({ cause: 'refused', code: 'ECONNREFUSED' });
  });

  it('names the status the API answered, and the turn goes on when a retry gets through', async () => {
    let failures = 0;
    mock.setScript((req) => (!req.side && failures++ < 1 ? { kind: 'error', status: 529 } : undefined));
    try {
      const s = session({});
      const { result, statuses } = await runTurn(s, 'hello tag:after-retry');
      expect(result?.text).toBe('ok tag:after-retry');
      expect(statuses.map((e) => e.message)).toEqual([
        expect.stringMatching(
          /^retrying 1\/2 in \d+ s: 127\.0\.0\.1:\d+ answered 529 \(overloaded\): a server-side error$/,
        ),
      ]);
      expect(statuses[0]!.key).toBe('api-retry');
    } finally {
      mock.setScript(undefined);
    }
  });
});
