/** `rudder status [--json]`: GET /api/status, for humans or raw. */
import { parseArgs } from 'node:util';
import type { StatusReport } from '../ops/status.js';
import { call, endpoint } from './client.js';

const mb = (b: number | null) => (b === null ? '-' : `${Math.round(b / 1024 / 1024)} MB`);

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } } });
  const s = await call<StatusReport>(endpoint(), 'GET', '/api/status');
  if (values.json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `Rudder ${s.version}, up ${s.uptimeSeconds}s, ${mb(s.gatewayRssBytes)}`,
    `Steering: ${s.steering.on ? 'on' : `off (${s.steering.reason})`}; default mode ${s.steering.mode}; agent processes ${s.steering.liveSessions}, ${s.steering.warm} idle; maxLive ${s.steering.maxLive} (${s.steering.maxLiveWhy})`,
    `Channels: ${s.channels.map((c) => `${c.name} ${c.state}${c.detail ? ` (${c.detail})` : ''}`).join(', ') || 'none'}`,
    `Replies owed: ${s.owedReplies}`,
    `Messages: ${Object.entries(s.messages).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
  ];
  if (s.sessions.length) {
    lines.push('Live sessions:');
    for (const x of s.sessions) lines.push(`  ${x.conversationId}  ${x.backend}  pid ${x.pid ?? '-'}  ${x.state}  idle ${x.idleSeconds}s  ${mb(x.rssBytes)}  steered ${x.steered}`);
  }
  if (s.queues.length) {
    lines.push('Queues:');
    for (const q of s.queues) lines.push(`  ${q.conversationId}  waiting ${q.depth}  in flight ${q.inFlight}${q.pausedUntil ? `  rate limited until ${q.pausedUntil}` : ''}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
