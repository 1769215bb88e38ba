/**
 * The intake hop: from the moment the gateway's HTTP server has a POSTed message to the moment the
 * agent is handed it (the fake agent's stdin, in effect): body parse, checks, the commit, the lane's
 * decision and the hand-off after the commit. Measured for a steer into a running turn and for a new
 * turn, one message at a time from a keep-alive client, with the machine as it is and with a CPU
 * burner beside it (a second runnable process, so about load 2 on two cores).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { now, tapHttp } from '../floor/wire-tap.js';
import { type Summary, summarize } from '../stats.js';
import { startFakeGateway } from './fake-gateway.js';

export interface HopResult {
  groupCommit: boolean;
  burner: boolean;
  steer: Summary;
  turn: Summary;
  /** Load average (1 min) when the runs ended. */
  load: number;
}

/** One CPU-bound process, stopped by the returned function. */
function burner(): () => void {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return () => void child.kill('SIGKILL');
}

export async function measureHop(n: number, groupCommit: boolean, withBurner: boolean): Promise<HopResult> {
  const tap = tapHttp();
  const stopBurner = withBurner ? burner() : undefined;
  const g = await startFakeGateway({ turnMs: 3_600_000, groupCommit });
  try {
    const { port } = g.gw.web!.address();
    const token = fs.readFileSync(path.join(g.home, 'web-token'), 'utf8').trim();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const post = (conv: string, text: string) =>
      new Promise<{ messageId: string; disposition: string }>((resolve, reject) => {
        const body = JSON.stringify({ text });
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: `/api/conversations/${conv}/messages`,
            method: 'POST',
            agent,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let d = '';
            res.on('data', (c) => (d += c));
            res.on('end', () => resolve(JSON.parse(d)));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    /** From the server's `request` event to the agent's hand-off, in ms. */
    const hop = async (conv: string, text: string, expect: string) => {
      const sent = now();
      const r = await post(conv, text);
      const at = tap.request(port, /\/messages$/, sent);
      const handed = g.inputs.get(r.messageId);
      if (r.disposition !== expect || at === undefined || handed === undefined)
        throw new Error(`hop: ${JSON.stringify(r)} (expected ${expect})`);
      return handed + performance.timeOrigin - at;
    };
    await post('hop-steer', 'the turn the steers go into');
    for (let i = 0; i < 30; i++) await hop('hop-steer', `warm ${i}`, 'steered');
    const steer: number[] = [];
    for (let i = 0; i < n; i++) steer.push(await hop('hop-steer', `steer ${i}`, 'steered'));
    const turn: number[] = [];
    for (let i = 0; i < n; i++) turn.push(await hop(`hop-new-${i}`, `first ${i}`, 'turn'));
    agent.destroy();
    return {
      groupCommit,
      burner: withBurner,
      steer: summarize(steer),
      turn: summarize(turn),
      load: os.loadavg()[0]!,
    };
  } finally {
    stopBurner?.();
    await g.stop();
  }
}
