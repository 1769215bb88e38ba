/** `rudder pairing list [channel]` and `rudder pairing approve <channel> <code>`, on the store in the data dir. */
import path from 'node:path';
import type { Command } from 'commander';
import { dataDir } from '../config/load.js';

export function register(program: Command): void {
  const pairing = program
    .command('pairing')
    .description('admit chat senders who were given a pairing code')
    .addHelpText(
      'after',
      '\nAn unknown sender in a direct chat gets a code (valid 1 hour); approving it admits that sender on ' +
        'that channel.',
    );
  pairing
    .command('list')
    .description('pending pairing requests')
    .argument('[channel]', 'only this channel (telegram, discord, slack, whatsapp)')
    .action(async (channel: string | undefined) => {
      process.exitCode = await withAccess(async (access, m) => {
        const pending = m.listPairing(access, channel);
        if (!pending.length) process.stdout.write('No pairing requests are waiting.\n');
        for (const p of pending)
          process.stdout.write(
            `${p.channel}  ${m.formatCode(p.code)}  ${p.senderName ?? ''} (${p.senderId})  ` +
              `expires ${new Date(p.expiresAt).toISOString()}\n`,
          );
        return 0;
      });
    });
  pairing
    .command('approve')
    .description('admit the sender who was given that code')
    .argument('<channel>', 'telegram, discord, slack or whatsapp')
    .argument('<code>', 'the code the sender was given')
    .action(async (channel: string, code: string) => {
      process.exitCode = await withAccess(async (access, m) => {
        const r = m.approvePairing(access, channel, code);
        if (r.ok) {
          process.stdout.write(`Approved ${r.senderName ?? r.senderId} on ${channel}.\n`);
          return 0;
        }
        process.stderr.write(
          r.reason === 'expired'
            ? 'That code has expired; ask the sender to write again for a new one.\n'
            : `No pending code ${code} on ${channel}. See rudder pairing list.\n`,
        );
        return 1;
      });
    });
}

type AccessModule = typeof import('../security/access.js');
type AccessStoreT = InstanceType<typeof import('../security/access-store.js')['AccessStore']>;

async function withAccess(fn: (access: AccessStoreT, m: AccessModule) => Promise<number>): Promise<number> {
  const [m, { AccessStore }, { Store }] = await Promise.all([
    import('../security/access.js'),
    import('../security/access-store.js'),
    import('../store/store.js'),
  ]);
  const store = new Store(path.join(dataDir(), 'rudder.db'));
  try {
    const access = new AccessStore(store.db);
    access.init();
    return await fn(access, m);
  } finally {
    await store.close();
  }
}
