/** A prompt's end as a result or a typed error: usage, cost, stop reasons, JSON-RPC errors. */
import { describe, expect, it } from 'vitest';
import { AcpTurn } from '../../../../src/agents/acp/acp-turn.js';
import { costOf, promptOutcome, requestError, usageOf } from '../../../../src/agents/acp/outcome.js';

describe('outcome', () => {
  const ctx = { conversationId: 'c', sessionId: 's', label: 'Gemini' };

  it('reads usage from `usage` or from Gemini quota, and the cost as the difference of running totals', () => {
    expect(
      usageOf({ stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 2, cachedReadTokens: 1 } } as never),
    ).toEqual({
      inputTokens: 3,
      outputTokens: 2,
      cacheReadInputTokens: 1,
      cacheCreationInputTokens: 0,
    });
    const gemini = {
      stopReason: 'end_turn',
      _meta: { quota: { token_count: { input_tokens: 40, output_tokens: 7 } } },
    };
    expect(usageOf(gemini as never)).toMatchObject({ inputTokens: 40, outputTokens: 7 });
    const turn = new AcpTurn(['m']);
    expect(costOf(turn)).toBeUndefined();
    turn.costAtStart = 0.5;
    turn.mapper.costUsd = 0.75;
    expect(costOf(turn)).toBe(0.25);
    turn.mapper.costUsd = 0.1; // a new process counts from 0 again
    expect(costOf(turn)).toBe(0.1);
  });

  it('a cancel is a result when asked for or after a refusal, a failure otherwise; a timeout is a timeout', () => {
    const turn = new AcpTurn(['m']);
    expect(promptOutcome({ stopReason: 'cancelled' }, turn, ctx, false)).toMatchObject({
      error: { code: 'AGENT_TURN_FAILED' },
    });
    expect(promptOutcome({ stopReason: 'cancelled' }, turn, ctx, true)).toMatchObject({
      ok: { interrupted: false, terminalReason: 'cancelled' },
      notice: 'Gemini ended the turn when the permission was refused.',
    });
    turn.interruptRequested = true;
    expect(promptOutcome({ stopReason: 'cancelled' }, turn, ctx, false)).toMatchObject({ ok: { interrupted: true } });
    turn.timedOut = true;
    expect(promptOutcome({ stopReason: 'cancelled' }, turn, ctx, false)).toMatchObject({
      error: { code: 'AGENT_TURN_TIMEOUT', context: { unanswered: ['m'] } },
    });
  });

  it('types JSON-RPC errors by code and message', () => {
    const e = (code: number, message: string) => requestError({ code, message }, ctx, ['m']).code;
    expect(e(-32000, 'Authentication required')).toBe('ACP_AUTH_REQUIRED');
    expect(e(-32603, 'API Error: 429 rate_limit_error')).toBe('AGENT_RATE_LIMITED');
    expect(e(-32603, 'API Error: 500 Internal server error')).toBe('AGENT_API_ERROR');
    expect(e(-32603, 'Internal error')).toBe('AGENT_TURN_FAILED');
    expect(requestError(new Error('x'), ctx, ['m']).context.unanswered).toEqual(['m']);
  });
});
