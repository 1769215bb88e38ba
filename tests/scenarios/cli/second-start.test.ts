/**
 * Two real `rudder start` processes on one data dir: the second exits 1 naming the first's pid and
 * touches nothing, while the first's turn finishes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../../src/ops/lock.js';
import { pidAlive, tempDir } from '../../support/claude-rig.js';
import { agentConfig, CLI, startChild, writeConfig } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

describe('a second rudder start on the same data dir', () => {
  let mock: MockApi;
  beforeAll(async () => {
    mock = await startMockApi();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('exits 1 naming the running pid, and the running turn and its agent are untouched', async () => {
    const first = await startChild({ agent: agentConfig(mock.url, tempDir('chome')), shutdownDrainSeconds: 5 });
    try {
      const w = first.watch('held');
      await w.ready;
      const m = await first.post('held', 'work on this [[bash:sleep 3]] tag:held');
      await w.wait('status', (d) => d.state === 'tool' && d.messageId === m.messageId);
      const status = (await (await first.api('GET', '/api/status')).json()) as { sessions: Array<{ pid: number }> };
      const agentPid = status.sessions[0]!.pid;
      const logBefore = fs.readFileSync(path.join(first.home, 'rudder.log'), 'utf8');

      const cwd = tempDir('second');
      writeConfig(cwd, { agent: agentConfig(mock.url, tempDir('chome')), web: { port: 0 } });
      const second = spawnSync(process.execPath, [CLI, 'start'], {
        cwd,
        env: { ...process.env, RUDDER_HOME: first.home },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(second.stderr).toContain(`Rudder is already running on this data dir. It runs as pid ${first.child.pid}:`);
      // Said once, not twice in one line.
      expect(second.stderr.split('already running')).toHaveLength(2);
      expect(second.status).toBe(1);
      expect(second.stdout).not.toContain('Rudder is running');

      expect(pidAlive(agentPid)).toBe(true);
      // The turn finishes as it would have: one reply, the message answered, no re-run notice.
      await w.waitReply(m.messageId, 'reply');
      expect(w.repliesFor(m.messageId).map((r) => r.data.kind)).toEqual(['reply']);
      const history = (await (await first.api('GET', '/api/conversations/held/messages')).json()) as {
        messages: Array<{ id: string; state: string }>;
      };
      expect(history.messages.find((x) => x.id === m.messageId)?.state).toBe('answered');
      // Nothing of the second start reached the running gateway's files.
      const log = fs.readFileSync(path.join(first.home, 'rudder.log'), 'utf8');
      expect(log.startsWith(logBefore)).toBe(true);
      expect(log).not.toMatch(/left behind by the previous run/);
      expect(log.match(/"msg":"rudder started"/g)).toHaveLength(1);
      expect(JSON.parse(fs.readFileSync(path.join(first.home, LOCK_FILE), 'utf8')).pid).toBe(first.child.pid);
    } finally {
      await first.stop();
    }
    // The first one released its lock on the way out.
    expect(fs.existsSync(path.join(first.home, LOCK_FILE))).toBe(false);
  });
});
