/**
 * The process model, decided from this measurement (src/agents/codex/server/servers.ts): memory per
 * warm conversation with every conversation a thread of one shared app-server, against an
 * app-server per conversation. The sessions are Rudder's own (CodexSession), each after one turn
 * with a command; PSS of the server processes and everything they started.
 */
import { CodexSession } from '../../src/agents/codex/codex-session.js';
import { CodexServers } from '../../src/agents/codex/server/servers.js';
import { silentLogger } from '../../src/ops/logger.js';
import { codexHome, codexLaunch } from '../../tests/support/codex-rig.js';
import { mb, sleep } from '../stats.js';
import { treePss } from './pss.js';
import { type MemoryRow, perConversation } from './scenarios.js';

export type Model = 'shared' | 'per conversation';

export async function modelMemory(mock: { url: string }, model: Model, max: number) {
  const sessions: CodexSession[] = [];
  const pools: CodexServers[] = [new CodexServers({ logger: silentLogger() })];
  const home = codexHome().codexHome;
  const rows: MemoryRow[] = [];
  try {
    for (let n = 1; n <= max; n++) {
      // Shared: one pool and one CODEX_HOME for all (one server); per conversation: a pool (a server) each.
      const servers = model === 'shared' ? pools[0]! : new CodexServers({ logger: silentLogger() });
      if (model !== 'shared') pools.push(servers);
      const s = new CodexSession(codexLaunch({ mockUrl: mock.url, servers, codexHome: home, conversationId: `p${n}` }));
      sessions.push(s);
      await s.startTurn({ inputs: [{ id: `w${n}`, text: 'warm up [[exec:echo hi]] tag:w' }] }).result;
      await sleep(1000);
      const pids = [...new Set(sessions.map((x) => x.pid()!))];
      rows.push({ n, pss: treePss(pids), processes: pids.length });
      process.stdout.write(
        `  ${model}: ${n} warm conversation(s) on ${pids.length} server(s): ${mb(rows.at(-1)!.pss)}\n`,
      );
    }
  } finally {
    await Promise.allSettled(sessions.map((s) => s.stop('benchmark over')));
    await Promise.allSettled(pools.map((p) => p.stopAll('benchmark over')));
  }
  return { rows, ...perConversation(rows) };
}
