/**
 * Memory. The gateway as `npm start` runs it (node dist/cli/main.js start, in a child process)
 * with 1,000 conversations that each had one turn and are now idle; the agent is the fake CLI
 * (each turn in a stream-json process that exits after it beyond the warm cap), so the figure is
 * the gateway's own. And the
 * resident size of a live `claude` process on the real CLI after a few turns.
 */
import fs from 'node:fs';
import { ClaudeStreamSession } from '../src/agents/claude/stream-session.js';
import { call } from '../src/cli/client.js';
import { rssOf } from '../src/ops/proc.js';
import { FAKE_CLAUDE, rigLaunch, waitUntil } from '../tests/support/claude-rig.js';
import { startChild } from '../tests/support/gateway-rig.js';
import { startMockApi } from '../tests/support/mock-anthropic.js';
import type { SectionBody } from './report.js';
import { mb, sleep } from './stats.js';

const TARGET_MB = 150;

function statusKb(pid: number, field: string): number | undefined {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Every descendant of a pid, from /proc (children files). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let kids: number[] = [];
    try {
      kids = fs.readdirSync(`/proc/${p}/task`).flatMap((t) => fs.readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      return;
    }
    for (const k of kids) {
      out.push(k);
      walk(k);
    }
  };
  walk(pid);
  return out;
}

async function gatewayWithIdleConversations(count: number) {
  const gw = await startChild({ agent: { claudeBin: FAKE_CLAUDE, env: { FAKE_CLAUDE_MODE: 'echo' } } });
  try {
    const pid = gw.child.pid!;
    await sleep(2000);
    const baseline = rssOf(pid);
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        await gw.post(`idle-${i}`, `hello ${i}`);
      }
    };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 8 }, worker));
    await waitUntil(async () => {
      const s = await call<{ messages: Record<string, number>; owedReplies: number }>(gw.ep, 'GET', '/api/status');
      return (s.messages.answered ?? 0) >= count && s.owedReplies === 0;
    }, 600_000, 500);
    const turnsMs = Date.now() - t0;
    await sleep(3000);
    return { baseline, idle: rssOf(pid), peak: statusKb(pid, 'VmHWM'), turnsMs };
  } finally {
    await gw.stop();
  }
}

async function liveClaudeRss() {
  const mock = await startMockApi();
  const session = new ClaudeStreamSession(rigLaunch({ mockUrl: mock.url, conversationId: 'rss' }));
  try {
    for (let k = 0; k < 3; k++) await session.startTurn({ inputs: [{ id: `r${k}`, text: `turn ${k} [[bash:echo hi]]` }] }).result;
    await sleep(500);
    const pid = session.pid()!;
    const kids = descendants(pid);
    return { leader: rssOf(pid), group: kids.reduce((n, k) => n + (rssOf(k) ?? 0), rssOf(pid) ?? 0), children: kids.length };
  } finally {
    await session.stop('benchmark over');
    await mock.close();
  }
}

export async function benchMemory(quick: boolean): Promise<SectionBody> {
  const count = quick ? 200 : 1000;
  const gw = await gatewayWithIdleConversations(count);
  const claude = await liveClaudeRss();
  const idleMb = (gw.idle ?? Infinity) / 1024 / 1024;
  return {
    tables: [
      {
        head: ['what', 'resident memory'],
        rows: [
          ['gateway just started (no conversation yet)', mb(gw.baseline)],
          [`gateway with ${count} idle conversations, each after one turn`, mb(gw.idle)],
          ['gateway peak (VmHWM) while those turns ran', mb(gw.peak)],
          ['per idle conversation', `${(((gw.idle ?? 0) - (gw.baseline ?? 0)) / count / 1024).toFixed(1)} KB`],
          ['a live claude process (2.1.332, after three turns)', mb(claude.leader)],
          ...(claude.children ? [[`the same with its ${claude.children} child process(es)`, mb(claude.group)]] : []),
        ],
      },
    ],
    checks: [{ target: `gateway RSS < ${TARGET_MB} MB with 1,000 idle conversations`, measured: `${mb(gw.idle)}${count !== 1000 ? ` (with ${count}: quick run)` : ''}`, pass: idleMb < TARGET_MB }],
    notes: [
      `The ${count} turns took ${(gw.turnsMs / 1000).toFixed(1)} s through the HTTP API with 8 senders; each ran in a stream-json process of the fake CLI, and past the warm cap its process exited when the turn was over, so no process is held for idle conversations, as in production.`,
      'Idle claude processes kept warm are capped (steering.maxLive: by default one per 2 GB of available memory, 2..8) and reaped when idle (steering.idleMinutes), so their memory does not grow with the number of conversations.',
    ],
    data: { conversations: count, gateway: gw, claude },
  };
}
