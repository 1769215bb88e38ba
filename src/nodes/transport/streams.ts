/**
 * The JetStream objects the front makes (idempotently, at each start and at `rudder node add`):
 * a work-queue stream per direction, each with a duplicate window for message-id dedup; the
 * front's durable consumer of every node's events and one durable consumer per node of its own
 * commands, each with its ack policy set explicitly (a consumer made without one comes back as
 * `none` on 2.9.10); and the presence bucket (heartbeats: per-key TTL does not work on 2.9.10).
 */
import { AckPolicy, DeliverPolicy, type JetStreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  COMMAND_STREAM,
  commandSubject,
  EVENT_STREAM,
  eventSubject,
  FRONT_CONSUMER,
  nodeConsumer,
  PRESENCE_BUCKET,
} from '../wire.js';

const NS = 1_000_000;
/** A resend within this long of the first publish is recognised as a duplicate by the server. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;
/** What a node or the front has not read after this long is dropped (a node gone for good). */
const MAX_AGE_MS = 7 * 24 * 3600_000;

export interface StreamSettings {
  ackWaitMs: number;
}

async function ensureStream(jsm: JetStreamManager, name: string, subject: string): Promise<void> {
  const config = {
    name,
    subjects: [subject],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: DUPLICATE_WINDOW_MS * NS,
    max_age: MAX_AGE_MS * NS,
  };
  try {
    await jsm.streams.info(name);
    await jsm.streams.update(name, config);
  } catch {
    await jsm.streams.add(config);
  }
}

async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
  filter: string,
  s: StreamSettings,
): Promise<void> {
  const config = {
    durable_name: durable,
    filter_subject: filter,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: s.ackWaitMs * NS,
    max_ack_pending: 10_000,
  };
  try {
    await jsm.consumers.info(stream, durable);
    await jsm.consumers.update(stream, durable, { ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending });
  } catch {
    await jsm.consumers.add(stream, config);
  }
}

/**
 * Streams, the front's consumer and the presence bucket, at the front's start. The front's consumer is made afresh:
 * what a previous run of the front (killed) had taken and not acknowledged is read again now, not after ack_wait.
 */
export async function ensureFrontStreams(nc: NatsConnection, jsm: JetStreamManager, s: StreamSettings): Promise<void> {
  await ensureStream(jsm, COMMAND_STREAM, commandSubject('*'));
  await ensureStream(jsm, EVENT_STREAM, eventSubject('*'));
  // On a work queue the stream holds only what is not acknowledged yet: a new consumer hands all of it out at
  // once, in order, instead of after ack_wait for what a previous reader had taken and not acknowledged.
  await jsm.consumers.delete(EVENT_STREAM, FRONT_CONSUMER).catch(() => undefined);
  await ensureConsumer(jsm, EVENT_STREAM, FRONT_CONSUMER, eventSubject('*'), s);
  await new Kvm(nc).create(PRESENCE_BUCKET, { history: 1, ttl: MAX_AGE_MS });
}

/** A node's durable consumer of its own commands. */
export async function ensureNodeConsumer(jsm: JetStreamManager, node: string, s: StreamSettings): Promise<void> {
  await ensureConsumer(jsm, COMMAND_STREAM, nodeConsumer(node), commandSubject(node), s);
}
