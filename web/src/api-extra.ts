/** Client calls beyond api.ts, through its one request helper (the same token, errors and timeouts). */
import type { Api } from './api.js';
import type { TurnsPage } from './wire-extra.js';

/** The conversation's newest turn with its steps (is a permission request open in it?). */
export function latestTurns(api: Api, conversationId: string): Promise<TurnsPage> {
  return api.request('GET', `/api/conversations/${encodeURIComponent(conversationId)}/turns?limit=1`);
}
