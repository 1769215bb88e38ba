/** A turn's result as the usage and cost stored with it and shown on its "Done" line. */
import type { TurnResult } from '../../agents/session.js';
import type { ModelCost, TurnCost } from '../../store/types.js';

const tokens = (v: number) => (Number.isFinite(v) && v > 0 ? Math.round(v) : 0);
/** Unknown stays unknown (a backend without a cost never reads as free); below zero (a node can send it) is 0. */
const usd = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, v) : null);

export function turnCost(r: TurnResult): TurnCost {
  const models = r.modelUsage
    ? Object.fromEntries(
        Object.entries(r.modelUsage).map(([model, u]): [string, ModelCost] => [
          model,
          {
            inputTokens: tokens(u.inputTokens),
            outputTokens: tokens(u.outputTokens),
            cacheReadTokens: tokens(u.cacheReadInputTokens),
            cacheCreationTokens: tokens(u.cacheCreationInputTokens),
            costUsd: usd(u.costUsd),
          },
        ]),
      )
    : null;
  return {
    inputTokens: tokens(r.usage.inputTokens),
    outputTokens: tokens(r.usage.outputTokens),
    cacheReadTokens: tokens(r.usage.cacheReadInputTokens),
    cacheCreationTokens: tokens(r.usage.cacheCreationInputTokens),
    costUsd: usd(r.costUsd),
    models: models && Object.keys(models).length ? models : null,
    durationMs: Number.isFinite(r.durationMs) ? Math.max(0, r.durationMs) : 0,
  };
}
