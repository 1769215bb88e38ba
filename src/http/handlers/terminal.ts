/**
 * `rudder attach` (gateway/api/terminal.ts):
 *   GET  /api/conversations/:id/terminal   what opening it in a terminal will do (TerminalPlan: way, busy, command)
 *   POST /api/conversations/:id/terminal   opens it: 200 where to attach (its pane; a headless session moved to one)
 *                                          or the Codex line; 202 {way: "waiting"} while a turn runs (ask again:
 *                                          the move happens at the turn's end)
 *   DELETE /api/conversations/:id/terminal a Codex thread handed back: {resumed} held messages run now (-1: none was
 *                                          held for a terminal)
 * Refusals: NOT_FOUND 404; TERMINAL_UNSUPPORTED, TERMINAL_NO_SESSION, TERMINAL_NO_PANE and
 * SESSION_IN_TERMINAL 409; a node's conversation whose node does not answer: AGENT_UNREACHABLE 503.
 */
import { HttpError } from '../errors.js';
import { ok, type Route, type RouteContext } from '../route.js';
import type { TerminalAnswer, TerminalBack, TerminalPlan } from '../wire.js';

function known({ api, params }: RouteContext): string {
  if (!api.conversation(params.id!)) throw new HttpError('NOT_FOUND', `No conversation "${params.id}".`);
  return params.id!;
}

export const terminalRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/conversations/:id/terminal',
    handler: async (c) => ok((await c.api.terminalPlan(known(c))) satisfies TerminalPlan),
  },
  {
    method: 'POST',
    path: '/api/conversations/:id/terminal',
    handler: async (c) => {
      const answer = (await c.api.openInTerminal(known(c))) satisfies TerminalAnswer;
      return ok(answer, answer.way === 'waiting' ? 202 : 200);
    },
  },
  {
    method: 'DELETE',
    path: '/api/conversations/:id/terminal',
    handler: async (c) => ok({ resumed: c.api.backFromTerminal(known(c)) } satisfies TerminalBack),
  },
];
