/**
 * The gateway's middle without a process or a network: a real SQLite store in a temp dir, the real
 * services (bus, replies, desk, steps, conversations, intake…) built by buildServices, and the
 * scripted in-process agent (fake-agent.ts) in place of Claude. Unit tests of the lane, the desk and
 * the services drive it through the same doors the channels use.
 */
import path from 'node:path';
import type { InboundMessage } from '../../src/channels/channel.js';
import { LiveConfig, parseConfig } from '../../src/config/load.js';
import { buildServices, type Services } from '../../src/gateway/services.js';
import { silentLogger } from '../../src/ops/logger.js';
import { AgentLaunches } from '../../src/projects/launches.js';
import { Projects } from '../../src/projects/service.js';
import { Store } from '../../src/store/store.js';
import type { MessageRow } from '../../src/store/types.js';
import { tempDir, waitUntil } from './claude-rig.js';
import { type FakeAgentOptions, FakeAgentSession } from './fake-agent.js';

export interface LaneRig {
  s: Services;
  /** Every agent session made, by conversation. */
  agents: Map<string, FakeAgentSession>;
  /** Texts the agent was handed, in order, with how (a turn or a steer). */
  inputs: Array<{ id: string; how: 'turn' | 'steer' }>;
  /** A message from the web page's owner, through intake. */
  send(
    conv: string,
    text: string,
    extra?: Partial<InboundMessage>,
  ): Promise<{ messageId: string; disposition: string }>;
  row(id: string): MessageRow;
  /** Waits until the message has this state. */
  until(id: string, state: MessageRow['state']): Promise<void>;
  close(): Promise<void>;
}

export async function laneRig(
  config: Record<string, unknown> = {},
  agent: FakeAgentOptions = {},
  opts: { dayOffsetMs?: () => number } = {},
): Promise<LaneRig> {
  const dataDir = tempDir('lane');
  const cwd = tempDir('lane-cwd');
  const parsed = parseConfig({ agent: { cwd }, web: { enabled: false }, ...config });
  const live = new LiveConfig(undefined, parsed);
  const log = silentLogger();
  const store = new Store(path.join(dataDir, 'rudder.db'));
  const projects = new Projects({ store, config: () => live.current(), env: process.env, log });
  const launches = new AgentLaunches({
    dataDir,
    config: live,
    store,
    projects,
    env: process.env,
    log,
    memAvailable: undefined,
  });
  const agents = new Map<string, FakeAgentSession>();
  const inputs: LaneRig['inputs'] = [];
  const factory = {
    live: (conversationId: string, sessionId: string | undefined) => {
      const a = new FakeAgentSession(conversationId, sessionId, {
        ...agent,
        onInput: (id, at, how) => {
          inputs.push({ id, how });
          agent.onInput?.(id, at, how);
        },
      });
      agents.set(conversationId, a);
      return a;
    },
  };
  const s = buildServices({
    config: live,
    store,
    log,
    env: process.env,
    projects,
    launches,
    factory,
    memAvailable: undefined,
    dayOffsetMs: opts.dayOffsetMs,
    dataDir,
  });
  let n = 0;
  const row = (id: string) => {
    const r = store.message(id);
    if (!r) throw new Error(`no message ${id}`);
    return r;
  };
  return {
    s,
    agents,
    inputs,
    send: (conv, text, extra = {}) =>
      s.intake.accept({
        channel: 'web',
        platformMessageId: `p${++n}`,
        conversationKey: conv,
        sender: { id: 'owner', name: 'web' },
        chatType: 'direct',
        text,
        sentAt: Date.now(),
        ...extra,
      }),
    row,
    until: (id, state) => waitUntil(() => row(id).state === state, 10_000, 5),
    async close() {
      await s.pool.stopAll('test over');
      s.conversations.dispose();
      s.cards.stop();
      s.replies.delivery.stop();
      s.steps.flush();
      await store.close();
    },
  };
}
