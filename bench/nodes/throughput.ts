/**
 * Durable messages per second through the front, with 1 and 2 nodes: closed loops (one message in
 * flight per conversation) through intake.accept, each message a turn on a node (the in-process
 * fake agent there) and back, its reply delivered to the page. Beside it, the same load on a
 * front-less gateway with the fake agent in its own process (bench/overhead's), for the wire's cost.
 */
import { rssOf } from '../../src/ops/proc.js';
import { startFakeGateway } from '../overhead/fake-gateway.js';
import { closedLoop } from '../overhead/load.js';
import { ms } from '../stats.js';
import { startBenchCluster } from './cluster.js';

const CONVERSATIONS = 8;

export async function throughput(quick: boolean) {
  const total = quick ? 200 : 1000;
  const rows: string[][] = [];
  const data: Record<string, unknown> = {};
  let nodeRss: number | undefined;

  const local = await startFakeGateway({ maxLive: CONVERSATIONS, groupCommit: true });
  try {
    const r = await closedLoop(local, CONVERSATIONS, total, { tag: 'tp-local' });
    rows.push([
      'no node (the agent in the gateway)',
      String(CONVERSATIONS),
      String(total),
      r.perSecond.toFixed(0),
      ms(r.elapsedMs / (total / CONVERSATIONS)),
    ]);
    data.local = r.perSecond;
  } finally {
    await local.stop();
  }

  for (const count of [1, 2]) {
    const names = Array.from({ length: count }, (_, i) => `f${i}`);
    const cl = await startBenchCluster(
      {},
      names.map((name) => ({ name, agent: 'fake' as const })),
    );
    try {
      const { store, bus } = cl.front.gw.services;
      const tag = `tp-${count}`;
      // Each conversation pinned to a node, round robin (what /project or the page's picker would do).
      for (let c = 0; c < CONVERSATIONS; c++) {
        const key = `${tag}-${CONVERSATIONS}-${c}`;
        store.ensureConversation(`web:${key}`, 'web', key);
        store.setProject(`web:${key}`, `on-${names[c % count]}`, null);
      }
      const done = new Set<string>();
      const waiters = new Map<string, () => void>();
      bus.subscribeAll((e) => {
        if (e.type !== 'reply') return;
        for (const id of (e.data.messageIds as string[] | undefined) ?? []) {
          const w = waiters.get(id);
          if (w) {
            waiters.delete(id);
            w();
          } else done.add(id);
        }
      });
      const g = {
        gw: cl.front.gw,
        home: '',
        dbFile: '',
        inputs: new Map<string, number>(),
        replied: (id: string) => (done.delete(id) ? Promise.resolve() : new Promise<void>((r) => waiters.set(id, r))),
        stop: async () => undefined,
      };
      const r = await closedLoop(g, CONVERSATIONS, total, { tag });
      const latency = r.elapsedMs / (total / CONVERSATIONS);
      rows.push([
        `${count} node${count > 1 ? 's' : ''}`,
        String(CONVERSATIONS),
        String(total),
        r.perSecond.toFixed(0),
        ms(latency),
      ]);
      data[`nodes${count}`] = r.perSecond;
      if (count === 1) nodeRss = rssOf(cl.nodes[0]!.child!.pid!);
    } finally {
      await cl.stop();
    }
  }
  return { rows, nodeRss, data };
}
