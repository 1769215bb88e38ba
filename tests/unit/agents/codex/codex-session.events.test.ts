/**
 * What a Codex turn shows (tool steps, diffs, reasoning) and how its failures are typed, on the
 * REAL codex against the mock Responses API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TurnEvent } from '../../../../src/agents/session.js';
import { isRudderError, type RudderError } from '../../../../src/errors.js';
import { codexLaunch, trackCodex } from '../../../support/codex-rig.js';
import { fail, type MockResponses, startMockResponses, timesSent } from '../../../support/mock-responses.js';

let mock: MockResponses;
const rig = trackCodex();

beforeAll(async () => {
  mock = await startMockResponses();
});
afterEach(() => mock.setScript(undefined));
afterAll(async () => {
  await mock.close();
});

function newSession() {
  const launch = codexLaunch({ mockUrl: mock.url });
  return { session: rig.session(launch), launch };
}

async function eventsOf(turn: { onEvent(l: (e: TurnEvent) => void): () => void; result: Promise<unknown> }) {
  const events: TurnEvent[] = [];
  turn.onEvent((e) => events.push(e));
  await turn.result.catch(() => undefined);
  await new Promise((r) => setImmediate(r));
  return events;
}

describe('codex turn events (real codex)', () => {
  it('a command is a Bash step with its command, cwd and output', async () => {
    const { session, launch } = newSession();
    const events = await eventsOf(session.startTurn({ inputs: [{ id: 'b1', text: 'run [[exec:echo hi; pwd]]' }] }));
    const use = events.find((e) => e.type === 'tool-use');
    expect(use).toMatchObject({ name: 'Bash', input: { command: 'echo hi; pwd', cwd: launch.cwd } });
    const result = events.find((e) => e.type === 'tool-result');
    expect(result).toMatchObject({ toolUseId: (use as { id: string }).id, isError: false });
    expect((result as { excerpt: string }).excerpt).toBe(`hi\n${launch.cwd}\n`);
  });

  it('a new file is a Write step with its content; a reasoning summary is a step of its own', async () => {
    const { session, launch } = newSession();
    const events = await eventsOf(
      session.startTurn({
        inputs: [{ id: 'w1', text: 'make it [[reason:**Planning** the file]] [[write:notes.txt:hello]]' }],
      }),
    );
    expect(fs.readFileSync(path.join(launch.cwd, 'notes.txt'), 'utf8')).toBe('hello\n');
    const uses = events.filter((e) => e.type === 'tool-use');
    expect(uses.map((e) => e.name)).toEqual(['Reasoning', 'Write']);
    expect(uses[0]!.input).toEqual({ summary: 'Planning the file' });
    expect(uses[1]!.input).toEqual({ file_path: path.join(launch.cwd, 'notes.txt'), content: 'hello\n' });
    const results = events.filter((e) => e.type === 'tool-result');
    expect(results[0]).toMatchObject({ isError: false, excerpt: '**Planning** the file' });
    expect(results[1]).toMatchObject({ isError: false, excerpt: `Created ${path.join(launch.cwd, 'notes.txt')}` });
  });

  it('a changed file is an Edit step with old and new text and the diff', async () => {
    const { session, launch } = newSession();
    fs.writeFileSync(path.join(launch.cwd, 'a.txt'), 'one\ntwo\nthree\n');
    const patch =
      "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three\n*** End Patch\nEOF";
    mock.setScript((req) => (req.afterTool ? undefined : { kind: 'reply', parts: [{ kind: 'exec', cmd: patch }] }));
    const events = await eventsOf(session.startTurn({ inputs: [{ id: 'e1', text: 'change it' }] }));
    const edit = events.find((e) => e.type === 'tool-use');
    expect(edit).toMatchObject({
      name: 'Edit',
      input: {
        file_path: path.join(launch.cwd, 'a.txt'),
        old_string: 'one\ntwo\nthree',
        new_string: 'one\nTWO\nthree',
      },
    });
    expect(String((edit as { input: { diff: string } }).input.diff)).toContain('-two\n+TWO');
    expect(fs.readFileSync(path.join(launch.cwd, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
  });
});

describe('codex failures (real codex)', () => {
  it('a usage limit (429 and codex limit headers) is AGENT_RATE_LIMITED with resetsAt', async () => {
    const { session } = newSession();
    const resetsAt = Math.floor(Date.now() / 1000) + 5400;
    mock.setScript((req) => (/\[\[limit\]\]/.test(req.lastUserText) ? fail(429, 'usage', resetsAt) : undefined));
    const err = await session
      .startTurn({ inputs: [{ id: 'r1', text: 'go [[limit]] tag:r1' }] })
      .result.catch((e: unknown) => e);
    expect(isRudderError(err, 'AGENT_RATE_LIMITED')).toBe(true);
    expect((err as RudderError).context.unanswered).toEqual(['r1']);
    expect((err as RudderError).context.resetsAt).toBe(resetsAt * 1000);
    expect((err as RudderError).context.apiErrorStatus).toBe(429);
    // The thread holds the rate-limited input (as Claude's session does): the next request carries it, unanswered.
    const ok = await session.startTurn({ inputs: [{ id: 'r2', text: 'fine tag:r2' }] }).result;
    expect(ok.text).toBe('ok tag:r1 tag:r2');
  });

  it('a plain 429 is AGENT_RATE_LIMITED without a reset time; the re-run with the note reaches it once', async () => {
    const { session } = newSession();
    const err = await session
      .startTurn({ inputs: [{ id: 'p1', text: 'go [[429]] tag:p1' }] })
      .result.catch((e: unknown) => e);
    expect(isRudderError(err, 'AGENT_RATE_LIMITED')).toBe(true);
    expect((err as RudderError).context.resetsAt).toBeUndefined();
    // The gateway's re-run after a rate limit: the session already holds the text, only the note goes.
    const note = '[Rudder] Your reply to the message above did not get through: answer it now.';
    const again = await session.startTurn({ inputs: [{ id: 'p1', text: 'go [[429]] tag:p1', note, inSession: true }] })
      .result;
    expect(again.isError).toBe(false);
    // Once: the 429 request never completed, and the re-run did not send the text again.
    expect(timesSent(mock.requests, 'go [[429]] tag:p1')).toBe(1);
    const last = mock.requests.filter((q) => q.threadId === again.sessionId).at(-1)!;
    expect(last.historyTexts.filter((t) => t.includes('go [[429]] tag:p1'))).toHaveLength(1);
    expect(last.lastUserText).toBe(note);
  });

  it('a 500 is AGENT_API_ERROR', async () => {
    const { session } = newSession();
    const err = await session.startTurn({ inputs: [{ id: 'x1', text: 'go [[500]]' }] }).result.catch((e: unknown) => e);
    expect(isRudderError(err, 'AGENT_API_ERROR')).toBe(true);
    expect((err as RudderError).context.unanswered).toEqual(['x1']);
  });
});
