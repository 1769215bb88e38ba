/**
 * What each NATS user may do, as the nats-server config's `accounts` block (one account, RUDDER,
 * with JetStream; an account of its own keeps JetStream across a config reload): the front may do
 * everything; node N may read only its own commands (its durable consumer, its acks, its queries)
 * and publish only its own events and heartbeat. Replies reach each user under its own inbox
 * prefix, so no node can read another's answers. The embedded server is given this block; for an
 * existing server, `rudder node add` prints it for the operator.
 */
import { COMMAND_STREAM, eventSubject, inboxPrefix, nodeConsumer, PRESENCE_BUCKET, querySubject } from '../wire.js';

export interface Permissions {
  publish: string[];
  subscribe: string[];
}

export function nodePermissions(node: string): Permissions {
  const consumer = `${COMMAND_STREAM}.${nodeConsumer(node)}`;
  return {
    publish: [
      eventSubject(node),
      `$KV.${PRESENCE_BUCKET}.${node}`,
      `$JS.API.CONSUMER.MSG.NEXT.${consumer}`,
      `$JS.API.CONSUMER.INFO.${consumer}`,
      `$JS.ACK.${consumer}.>`,
      `$JS.API.STREAM.INFO.KV_${PRESENCE_BUCKET}`,
      '$JS.API.INFO',
    ],
    subscribe: [`${inboxPrefix(node)}.>`, querySubject(node)],
  };
}

const q = (s: string) => JSON.stringify(s);

/** The account's block: the front's key with every right, each node's key with its own. */
export function accountsBlock(frontKey: string, nodes: Record<string, { publicKey: string }>): string {
  const lines = [
    'accounts {',
    '  RUDDER {',
    '    jetstream: enabled',
    '    users = [',
    `      { nkey: ${q(frontKey)} }`,
  ];
  for (const [name, n] of Object.entries(nodes)) {
    const p = nodePermissions(name);
    lines.push(
      `      # node ${name}`,
      `      { nkey: ${q(n.publicKey)}, permissions: {`,
      `          publish: { allow: [${p.publish.map(q).join(', ')}] }`,
      `          subscribe: { allow: [${p.subscribe.map(q).join(', ')}] }`,
      '          allow_responses: true',
      '      } }',
    );
  }
  lines.push('    ]', '  }', '}');
  return lines.join('\n');
}
