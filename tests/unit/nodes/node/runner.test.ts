/**
 * The node's runner on a real store, project set, registry and pool, with a scripted agent session:
 * a front turn that arrives while the agent is still busy waits, and runs as soon as the agent can
 * take it, whatever freed the agent (its own turn's end, or a message on its way that was dropped).
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentPool } from '../../../../src/agents/pool.js';
import { SessionRegistry } from '../../../../src/agents/registry.js';
import { type SteerPromise, type SteerResult, steerPromise, type UserInput } from '../../../../src/agents/session.js';
import { parseConfig } from '../../../../src/config/load.js';
import { NodeStore } from '../../../../src/nodes/node/node-store.js';
import { NodeRunner } from '../../../../src/nodes/node/runner.js';
import type { NodeEvent } from '../../../../src/nodes/wire.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { Projects } from '../../../../src/projects/service.js';
import { Store } from '../../../../src/store/store.js';
import { tempDir, waitUntil } from '../../../support/claude-rig.js';
import { FakeAgentSession } from '../../../support/fake-agent.js';

/** An agent whose steers stay "on the wire" (the session reads busy) until the test settles them. */
class WireSession extends FakeAgentSession {
  readonly onWire: Array<(r: SteerResult) => void> = [];
  readonly started: string[][] = [];

  protected override inFlight(): boolean {
    return super.inFlight() || this.onWire.length > 0;
  }

  protected override beginTurn(inputs: UserInput[], turnId?: string) {
    this.started.push(inputs.map((i) => i.id));
    return super.beginTurn(inputs, turnId);
  }

  override steer(_input: UserInput): SteerPromise {
    return steerPromise(new Promise<SteerResult>((resolve) => this.onWire.push(resolve)), true);
  }

  /** The message on the wire never reached the agent (its process went away between turns). */
  drop(): void {
    for (const settle of this.onWire.splice(0)) settle({ outcome: 'process-dead' });
  }
}

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

function rig() {
  const dataDir = tempDir('runner');
  const store = new Store(path.join(dataDir, 'rudder.db'));
  stores.push(store);
  const cfg = parseConfig({ projects: { app: { path: tempDir('app') } } }, 'config', { dataDir });
  const log = silentLogger();
  const projects = new Projects({ store, config: () => cfg, env: process.env, log });
  const sessions: WireSession[] = [];
  const registry = new SessionRegistry({ maxLive: 4, idleMinutes: 30, logger: log });
  const pool = new AgentPool(registry, {
    live: (conversationId, sessionId) => {
      const s = new WireSession(conversationId, sessionId, { turnMs: 20 });
      sessions.push(s);
      return s;
    },
  });
  const events: NodeEvent[] = [];
  const runner = new NodeRunner({
    node: 'n1',
    store,
    nodeStore: new NodeStore(store.db),
    projects,
    pool,
    publish: async (e) => void events.push(e),
    log,
  });
  const ends = () => events.filter((e) => e.type === 'end').map((e) => e.turnId);
  return { runner, sessions, events, ends };
}

const turn = (turnId: string, id: string) => ({
  type: 'turn' as const,
  conversationId: 'web:c1',
  project: 'app',
  turnId,
  inputs: [{ id, text: `text ${id}` }],
  sessionId: null,
});

describe('the node runner', () => {
  it('runs a front turn that waited while a message was on its way, once that message is dropped', async () => {
    const { runner, sessions, ends } = rig();
    runner.handle(turn('t1', 'm1'));
    await waitUntil(() => ends().includes('t1'), 5000);
    const session = sessions[0]!;
    // A steer written between turns: the agent reads busy until it is taken in or dropped.
    runner.handle({ type: 'steer', conversationId: 'web:c1', input: { id: 'm2', text: 'text m2' } });
    expect(session.state()).toBe('busy');
    runner.handle(turn('t2', 'm3'));
    await new Promise((r) => setTimeout(r, 50));
    expect(session.started).toEqual([['m1']]);
    // The message never reached the agent: nothing ends a turn, and the waiting one must still run.
    session.drop();
    await waitUntil(() => ends().includes('t2'), 5000);
    expect(session.started).toEqual([['m1'], ['m3']]);
    expect(ends()).toEqual(['t1', 't2']);
  });

  it('runs a front turn that waited for the agent own turn after that turn ends', async () => {
    const { runner, sessions, ends, events } = rig();
    runner.handle(turn('t1', 'm1'));
    await waitUntil(() => ends().includes('t1'), 5000);
    const session = sessions[0]!;
    // The agent starts a turn of its own (a steer that ran as the next turn), and the front's turn arrives.
    const own = session.startTurn({ inputs: [{ id: 'm2', text: 'text m2' }] });
    runner.handle(turn('t2', 'm3'));
    await own.result;
    await waitUntil(() => ends().includes('t2'), 5000);
    expect(session.started).toEqual([['m1'], ['m2'], ['m3']]);
    expect(ends()).toEqual(['t1', own.id, 't2']);
    expect(events.filter((e) => e.type === 'turn').map((e) => e.turnId)).toEqual(['t1', own.id, 't2']);
  });
});
