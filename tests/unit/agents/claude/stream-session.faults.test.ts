/**
 * Faults the real CLI will not produce on demand, through the tiny fake `claude` script.
 */
import { describe, expect, it } from 'vitest';
import { ClaudeStreamSession } from '../../../../src/agents/claude/stream-session.js';
import { isRudderError, type RudderError } from '../../../../src/errors.js';
import { FAKE_CLAUDE, recordingLogger, rigLaunch, trackSessions, waitUntil } from '../../../support/claude-rig.js';

const sessions = trackSessions<ClaudeStreamSession>();

function fakeSession(mode: string, extraEnv: Record<string, string> = {}) {
  const { logger, records } = recordingLogger();
  const launch = rigLaunch({
    mockUrl: 'http://127.0.0.1:9',
    bin: FAKE_CLAUDE,
    logger,
    env: { FAKE_CLAUDE_MODE: mode, ...extraEnv },
  });
  const session = new ClaudeStreamSession(launch);
  sessions.push(session);
  return { session, records };
}

describe('claude stream session faults (fake CLI)', () => {
  it('does not stall when the child writes 1 MB to stderr during a turn, and keeps the last 50 lines', async () => {
    const { session } = fakeSession('stderr-flood', { FAKE_STDERR_BYTES: String(1024 * 1024) });
    const r = await session.startTurn({ inputs: [{ id: 'f1', text: 'flood' }] }).result;
    expect(r.text).toBe(`flooded ${1024 * 1024} bytes`);
    const tail = session.stderrTail();
    expect(tail.length).toBeLessThanOrEqual(51);
    expect(tail.length).toBeGreaterThanOrEqual(50);
    expect(tail[0]).toMatch(/^x+$/);
  });

  it('skips and logs malformed lines, keeps unknown frames, and still answers', async () => {
    const { session, records } = fakeSession('malformed');
    const r = await session.startTurn({ inputs: [{ id: 'f2', text: 'go' }] }).result;
    expect(r.text).toBe('still here');
    const skipped = records.filter((x) => x.msg === 'agent output: malformed line skipped');
    expect(skipped.map((x) => x.reason)).toEqual([
      'not JSON',
      'not JSON',
      'not a JSON object',
      'result frame without boolean is_error',
    ]);
    expect(String(skipped[0]!.excerpt)).toBe('this is not json');
    expect(records.some((x) => x.msg === 'agent output: unmodelled frame kept' && x.wireType === 'mystery_frame')).toBe(
      true,
    );
  });

  it('turns EOF without a result into a clear error naming the unanswered input', async () => {
    const { session } = fakeSession('eof-no-result');
    const err = (await session
      .startTurn({ inputs: [{ id: 'f3', text: 'go' }] })
      .result.catch((e: unknown) => e)) as RudderError;
    expect(isRudderError(err, 'AGENT_EOF_WITHOUT_RESULT')).toBe(true);
    expect(err.context.unanswered).toEqual(['f3']);
    expect(err.message).toContain('closed its output before the turn produced a result');
  });

  it('reports an exit in the middle of a frame as a crash, and logs the cut frame', async () => {
    const { session, records } = fakeSession('midframe');
    const err = (await session
      .startTurn({ inputs: [{ id: 'f4', text: 'go' }] })
      .result.catch((e: unknown) => e)) as RudderError;
    expect(isRudderError(err, 'AGENT_CRASHED')).toBe(true);
    expect(err.context.unanswered).toEqual(['f4']);
    expect(err.context.exitCode).toBe(1);
    expect(records.some((x) => x.msg === 'agent output ended in the middle of a frame')).toBe(true);
  });

  it('fails a turn clearly when the binary is missing, without hanging', async () => {
    const launch = rigLaunch({ mockUrl: 'http://127.0.0.1:9', bin: '/nonexistent/claude' });
    const session = new ClaudeStreamSession(launch);
    sessions.push(session);
    const err = (await session
      .startTurn({ inputs: [{ id: 'f5', text: 'go' }] })
      .result.catch((e: unknown) => e)) as RudderError;
    expect(isRudderError(err, 'CLAUDE_BINARY_MISSING')).toBe(true);
    expect(err.context.unanswered).toEqual(['f5']);
    expect(session.state()).toBe('idle');
  });

  it('reports a steer into a dead process as process-dead without writing', async () => {
    const { session } = fakeSession('echo');
    expect((await session.steer({ id: 'f6', text: 'nobody home' })).outcome).toBe('process-dead');
    await session.startTurn({ inputs: [{ id: 'f7', text: 'start' }] }).result;
    const pid = session.pid()!;
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => session.state() === 'dead', 5000);
    expect((await session.steer({ id: 'f8', text: 'after death' })).outcome).toBe('process-dead');
  });
});
