/**
 * The transport on a real nats-server child (the embedded one, its own store dir, a free port): the
 * publisher resends what a killed server lost and nothing doubles (message-id dedup); the reader
 * acknowledges a message only once its handler's commit resolved, so one not committed comes back;
 * the wire's parser never throws, whatever it is given.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frontSeed } from '../../../src/nodes/credentials.js';
import { PresenceWatch } from '../../../src/nodes/front/presence.js';
import { connectNats } from '../../../src/nodes/transport/connection.js';
import { EmbeddedServer } from '../../../src/nodes/transport/embedded.js';
import { Publisher } from '../../../src/nodes/transport/publisher.js';
import { DurableReader } from '../../../src/nodes/transport/reader.js';
import { ensureFrontStreams } from '../../../src/nodes/transport/streams.js';
import {
  commandId,
  EVENT_STREAM,
  encode,
  eventId,
  eventSubject,
  FRONT_CONSUMER,
  PRESENCE_BUCKET,
  type Presence,
  parseCommand,
  parseNodeEvent,
  parsePresence,
  WIRE_VERSION,
} from '../../../src/nodes/wire.js';
import { silentLogger } from '../../../src/ops/logger.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { freePort } from '../../support/nodes-rig.js';

const log = silentLogger();
let home: string;
let server: EmbeddedServer;
let nc: NatsConnection;

beforeAll(async () => {
  home = tempDir('transport');
  server = await EmbeddedServer.start({ dataDir: home, port: await freePort(), log });
  nc = await connectNats({ url: server.url, seed: frontSeed(home), who: 'front', log });
  await ensureFrontStreams(nc, await jetstreamManager(nc), { ackWaitMs: 1000 });
});

afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

describe('transport on a real nats-server', { timeout: 120_000 }, () => {
  it('the publisher resends what a killed server lost, in order, and the stream holds each message once', async () => {
    const js = jetstream(nc);
    const pub = new Publisher(js, log);
    const subject = eventSubject('pubtest');
    const sent: Array<Promise<void>> = [];
    for (let i = 0; i < 300; i++) {
      sent.push(
        pub.publish(
          subject,
          encode({ type: 'steer', conversationId: 'c', inputId: `m${i}`, outcome: 'steered' }),
          `p-${i}`,
        ),
      );
      if (i === 100) process.kill(server.pid!, 'SIGKILL');
    }
    await Promise.all(sent);
    expect(pub.pending()).toBe(0);
    // Read them back from the stream (a work queue, nothing consumed them): each once, in the order queued.
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info(EVENT_STREAM);
    const seen: string[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(EVENT_STREAM, { seq }).catch(() => undefined);
      if (m?.subject === subject) seen.push((parseNodeEvent(m.data) as { inputId: string }).inputId);
    }
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => `m${i}`));
  });

  it('the reader acknowledges only after the commit: a message not committed comes back', async () => {
    const js = jetstream(nc);
    const subject = eventSubject('readtest');
    const e = {
      type: 'end' as const,
      conversationId: 'c',
      turnId: 't1',
      sessionId: null,
      error: { code: 'X', message: '', context: {} },
    };
    await js.publish(subject, encode(e), { msgID: eventId(e) });
    const deliveries: number[] = [];
    let commit: (() => void) | undefined;
    const reader = new DurableReader({
      js,
      stream: EVENT_STREAM,
      consumer: FRONT_CONSUMER,
      log,
      handle: (m) => {
        if (m.subject !== subject) return undefined;
        deliveries.push(Date.now());
        // The first time, the commit never comes (a crash before it); the second time it does.
        if (deliveries.length === 1) return new Promise<void>(() => undefined);
        return new Promise<void>((r) => (commit = r));
      },
    });
    reader.start();
    await waitUntil(() => deliveries.length >= 2, 30_000);
    commit!();
    await new Promise((r) => setTimeout(r, 2500));
    await reader.stop();
    // Handed out again after ack_wait (1 s), then acknowledged: no third delivery.
    expect(deliveries).toHaveLength(2);
  });

  it('what a killed front took and never acknowledged is read at the next start, not after ack_wait', async () => {
    const jsm = await jetstreamManager(nc);
    // A long ack_wait: the message must come back well before it.
    await ensureFrontStreams(nc, jsm, { ackWaitMs: 120_000 });
    const subject = eventSubject('takeover');
    const e = { type: 'steer' as const, conversationId: 'c', inputId: 'k1', outcome: 'steered' as const };
    await jetstream(nc).publish(subject, encode(e), { msgID: eventId(e) });
    // The previous run of the front: takes the message, never commits it, and dies with its connection.
    const old = await connectNats({ url: server.url, seed: frontSeed(home), who: 'front', log });
    let taken = false;
    const before = new DurableReader({
      js: jetstream(old),
      stream: EVENT_STREAM,
      consumer: FRONT_CONSUMER,
      log,
      handle: (m) => {
        if (m.subject !== subject) return undefined;
        taken = true;
        return new Promise<void>(() => undefined);
      },
    });
    before.start();
    await waitUntil(() => taken, 30_000);
    await old.close();
    // The next start: the same consumer, read by a new connection.
    await ensureFrontStreams(nc, jsm, { ackWaitMs: 120_000 });
    let again = 0;
    const after = new DurableReader({
      js: jetstream(nc),
      stream: EVENT_STREAM,
      consumer: FRONT_CONSUMER,
      log,
      handle: (m) => {
        if (m.subject === subject) again++;
        return Promise.resolve();
      },
    });
    after.start();
    try {
      await waitUntil(() => again === 1, 30_000);
    } finally {
      await after.stop();
      await before.stop();
      await ensureFrontStreams(nc, jsm, { ackWaitMs: 1000 });
    }
    expect(again).toBe(1);
  });

  it('presence: a lost node is back with its first event, before its heartbeat; each change told once', async () => {
    const kv = await new Kvm(nc).open(PRESENCE_BUCKET);
    const watch = new PresenceWatch(kv, 400, log);
    const told: boolean[] = [];
    watch.onReach('pn', (r) => told.push(r.reachable));
    await watch.start();
    try {
      const beat = (): Promise<unknown> => {
        const p: Presence = {
          v: WIRE_VERSION,
          node: 'pn',
          at: Date.now(),
          startedAt: Date.now(),
          version: 'test',
          projects: [],
          sessions: [],
          rssBytes: null,
        };
        return kv.put('pn', encode(p));
      };
      await beat();
      await waitUntil(() => watch.reach('pn').reachable, 10_000);
      await waitUntil(() => !watch.reach('pn').reachable, 10_000);
      // A restarted node reports the turn its crash cut off before its first heartbeat lands.
      watch.heardFrom('pn');
      expect(watch.reach('pn').reachable).toBe(true);
      expect(told).toEqual([true, false, true]);
      await beat();
      await new Promise((r) => setTimeout(r, 200));
      expect(told).toEqual([true, false, true]);
    } finally {
      watch.stop();
    }
  });

  it('the wire parser never throws, and gives back what was encoded', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          parseCommand(text);
          parseNodeEvent(text);
          parsePresence(text);
          parseCommand(new TextEncoder().encode(text));
        },
      ),
      { numRuns: 500 },
    );
    const turn = {
      type: 'turn' as const,
      conversationId: 'web:a',
      project: 'p',
      turnId: 't',
      inputs: [{ id: 'm1', text: 'hi' }],
      sessionId: null,
    };
    expect(parseCommand(encode(turn))).toEqual(turn);
    expect(commandId(turn)).toBe('turn:t');
    expect(parseCommand(JSON.stringify({ ...turn, inputs: [{ id: 1 }] }))).toBeUndefined();
    expect(
      parseNodeEvent(JSON.stringify({ type: 'event', conversationId: 'c', turnId: 't', seq: 'x', event: {} })),
    ).toBeUndefined();
  });
});
