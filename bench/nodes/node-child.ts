/**
 * A node for the benchmark: `rudder node` as a process (startNode, as the CLI runs it), its agent the
 * real CLI or, with BENCH_NODE_AGENT=fake, the in-process fake (tests/support/fake-agent.ts, so a
 * throughput figure is the front's and the wire's, not Claude's). It writes, as JSON lines to
 * BENCH_TAP_FILE: when each command reached the runner, when each event was handed to the
 * publisher, and (real agent) each write to the agent's stdin. Times are epoch ms with sub-ms
 * precision (performance.timeOrigin + now()), comparable with the front's on this machine.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { findConfigFile, LiveConfig, loadConfig } from '../../src/config/load.js';
import { decodeJoinToken } from '../../src/nodes/credentials.js';
import { startNode } from '../../src/nodes/node/node.js';
import { NodeRunner } from '../../src/nodes/node/runner.js';
import { Publisher } from '../../src/nodes/transport/publisher.js';
import { type Command, commandId, parseCommand } from '../../src/nodes/wire.js';
import { createLogger } from '../../src/ops/logger.js';
import { fakeSessionFactory } from '../../tests/support/fake-agent.js';
import { tapRudder } from '../floor/wire-tap.js';
import { onReaderTake, storedAt } from './taps.js';

const now = () => performance.timeOrigin + performance.now();
const out = fs.openSync(process.env.BENCH_TAP_FILE!, 'a');
const tap = (o: Record<string, unknown>) => fs.writeSync(out, `${JSON.stringify(o)}\n`);

onReaderTake((m) => {
  const c = parseCommand(m.data);
  if (c) tap({ k: 'recv', id: commandId(c), at: now(), stored: storedAt(m) });
});
const handle = NodeRunner.prototype.handle;
NodeRunner.prototype.handle = function (this: NodeRunner, c: Command) {
  tap({ k: 'cmd', id: commandId(c), at: now() });
  return handle.call(this, c);
};
const publish = Publisher.prototype.publish;
Publisher.prototype.publish = function (this: Publisher, subject: string, data: Uint8Array, msgId: string) {
  if (subject.startsWith('rudder.evt.')) tap({ k: 'evt', id: msgId, at: now() });
  return publish.call(this, subject, data, msgId);
};

const fake = process.env.BENCH_NODE_AGENT === 'fake';
if (!fake) {
  const taps = tapRudder();
  const seen = new Map<unknown, number>();
  setInterval(() => {
    for (const t of taps.taps) {
      const from = seen.get(t) ?? 0;
      for (const w of t.writes.slice(from)) tap({ k: 'stdin', label: t.label, at: w.at, text: w.text.slice(0, 2000) });
      seen.set(t, t.writes.length);
    }
  }, 20).unref();
}

const home = process.env.RUDDER_HOME!;
const loaded = loadConfig(findConfigFile());
const node = await startNode({
  dataDir: home,
  config: new LiveConfig(loaded.file, loaded.config),
  join: decodeJoinToken(process.env.RUDDER_NODE_TOKEN!),
  log: createLogger({ dataDir: home, level: 'info', pretty: false }),
  ...(fake ? { sessionFactory: fakeSessionFactory({ turnMs: 0 }) } : {}),
});
process.stdout.write(`ready ${node.name}\n`);
process.on('SIGTERM', () => void node.stop('SIGTERM').then(() => process.exit(0)));
