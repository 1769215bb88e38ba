/**
 * A turn's cost as it is stored and counted against a project's budget: what a backend (or a node,
 * which can send anything) reports below zero counts as 0, never as money given back; an unknown cost
 * stays unknown.
 */
import { describe, expect, it } from 'vitest';
import type { TurnResult } from '../../../../src/agents/session.js';
import { turnCost } from '../../../../src/gateway/budget/usage.js';

const usage = { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };

function result(costUsd: number | undefined, modelCost?: number): TurnResult {
  return {
    text: 'ok',
    sessionId: 's',
    usage,
    costUsd,
    ...(modelCost !== undefined ? { modelUsage: { 'claude-x': { ...usage, costUsd: modelCost } } } : {}),
    durationMs: 1200,
    numTurns: 1,
    terminalReason: undefined,
    isError: false,
    interrupted: false,
    inputIds: ['m1'],
    steered: 0,
  };
}

describe("a turn's cost", () => {
  it('counts a reported cost below zero as 0, for the turn and for each model', () => {
    const c = turnCost(result(-4.5, -4.5));
    expect(c.costUsd).toBe(0);
    expect(c.models?.['claude-x']?.costUsd).toBe(0);
  });

  it('keeps a real cost, and an unknown one unknown', () => {
    expect(turnCost(result(0.25, 0.25)).costUsd).toBe(0.25);
    expect(turnCost(result(undefined)).costUsd).toBeNull();
    expect(turnCost(result(Number.NaN)).costUsd).toBeNull();
  });
});
