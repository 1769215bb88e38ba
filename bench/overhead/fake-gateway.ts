/**
 * A real gateway (store, lanes, delivery, web channel) whose agent is the scripted in-process fake,
 * so the figures are the gateway's own. Logging is as in production: info level, JSON to a file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type RunningGateway, startGateway } from '../../src/app/start.js';
import type { InboundMessage } from '../../src/channels/channel.js';
import { LiveConfig, parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/ops/logger.js';
import { tempDir } from '../../tests/support/claude-rig.js';
import { fakeSessionFactory } from '../../tests/support/fake-agent.js';
import { writeConfig } from '../../tests/support/gateway-rig.js';

export interface FakeGateway {
  gw: RunningGateway;
  home: string;
  dbFile: string;
  /** performance.now() at which each message id reached the fake agent. */
  inputs: Map<string, number>;
  /** Resolves once a reply (or notice) answering the message was delivered. */
  replied(messageId: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startFakeGateway(
  opts: { turnMs?: number; maxLive?: number; groupCommit?: boolean } = {},
): Promise<FakeGateway> {
  const home = tempDir('bench-home');
  const cwd = tempDir('bench-cwd');
  const config = {
    web: { port: 0 },
    shutdownDrainSeconds: 0,
    agent: { cwd },
    steering: { maxLive: opts.maxLive ?? 2 },
    store: { groupCommit: opts.groupCommit ?? false },
  };
  const live = new LiveConfig(writeConfig(cwd, config), parseConfig(config));
  const inputs = new Map<string, number>();
  const logger = createLogger({ dataDir: home, level: 'info', pretty: false });
  const gw = await startGateway({
    dataDir: home,
    config: live,
    logger,
    sessionFactory: fakeSessionFactory({ turnMs: opts.turnMs ?? 0, onInput: (id, at) => inputs.set(id, at) }),
  });
  const done = new Set<string>();
  const waiters = new Map<string, () => void>();
  gw.services.bus.subscribeAll((e) => {
    if (e.type !== 'reply') return;
    for (const id of (e.data.messageIds as string[] | undefined) ?? []) {
      const w = waiters.get(id);
      if (w) {
        waiters.delete(id);
        w();
      } else done.add(id);
    }
  });
  return {
    gw,
    home,
    dbFile: path.join(home, 'rudder.db'),
    inputs,
    replied: (id) => (done.delete(id) ? Promise.resolve() : new Promise((r) => waiters.set(id, r))),
    stop: async () => {
      await gw.stop('benchmark over');
      for (const d of [home, cwd]) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** A web message from the owner, as the HTTP API builds it. */
export function webMessage(conversationKey: string, text: string): InboundMessage {
  return {
    channel: 'web',
    platformMessageId: `bench-${process.pid}-${counter++}`,
    conversationKey,
    sender: { id: 'owner', name: 'web' },
    chatType: 'direct',
    text,
    sentAt: Date.now(),
  };
}
