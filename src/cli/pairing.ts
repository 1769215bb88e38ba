/** `rudder pairing list [channel]` and `rudder pairing approve <channel> <code>`, on the store in the data dir. */
import path from 'node:path';
import { dataDir } from '../config/load.js';
import { approvePairing, formatCode, listPairing } from '../security/access.js';
import { AccessStore } from '../security/access-store.js';
import { Store } from '../store/store.js';

export async function run(argv: string[]): Promise<number> {
  const [sub, channel, code] = argv;
  const store = new Store(path.join(dataDir(), 'rudder.db'));
  try {
    const access = new AccessStore(store.db);
    access.init();
    if (sub === 'list') {
      const pending = listPairing(access, channel);
      if (!pending.length) process.stdout.write('No pairing requests are waiting.\n');
      for (const p of pending) process.stdout.write(`${p.channel}  ${formatCode(p.code)}  ${p.senderName ?? ''} (${p.senderId})  expires ${new Date(p.expiresAt).toISOString()}\n`);
      return 0;
    }
    if (sub === 'approve' && channel && code) {
      const r = approvePairing(access, channel, code);
      if (r.ok) {
        process.stdout.write(`Approved ${r.senderName ?? r.senderId} on ${channel}.\n`);
        return 0;
      }
      process.stderr.write(r.reason === 'expired' ? 'That code has expired; ask the sender to write again for a new one.\n' : `No pending code ${code} on ${channel}. See rudder pairing list.\n`);
      return 1;
    }
    process.stderr.write('Usage: rudder pairing list [channel] | rudder pairing approve <channel> <code>\n');
    return 2;
  } finally {
    store.close();
  }
}
