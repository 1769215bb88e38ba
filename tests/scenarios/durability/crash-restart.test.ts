/**
 * Crashes: kill -9 of the gateway mid-turn and a restart, an owed reply after a crash, and a
 * claude process killed mid-turn. On the real CLI and the mock Messages API.
 */

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/store.js';
import { FAKE_CLAUDE, pidAlive, tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startChild, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, type MockRequest, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
const running: Array<{ stop(): Promise<void> }> = [];
beforeAll(async () => {
  mock = await startMockApi();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.stop()));
  mock.setScript(undefined);
});
afterAll(async () => {
  await mock.close();
});

const OPEN = ['accepted', 'queued', 'running', 'steering', 'deferred'];

function states(home: string): Record<string, string> {
  const db = new Database(path.join(home, 'rudder.db'), { readonly: true });
  try {
    return Object.fromEntries(
      (db.prepare('SELECT id, state FROM messages').all() as Array<{ id: string; state: string }>).map((r) => [
        r.id,
        r.state,
      ]),
    );
  } finally {
    db.close();
  }
}

describe('crash and restart (real CLI)', () => {
  it(
    'kill -9 of the gateway mid-turn: after a restart the message is answered exactly once and none is left ' +
      'without an outcome',
    async () => {
      const home = tempDir('rhome');
      const claudeHome = tempDir('chome');
      const config = { agent: agentConfig(mock.url, claudeHome) };
      const first = await startChild(config, { home });
      const w1 = first.watch('crash');
      await w1.ready;
      const warm = await first.post('crash', 'remember tag:k0');
      await w1.waitReply(warm.messageId);
      const m = await first.post('crash', 'slow [[bash:sleep 3]] tag:k1');
      const queued = await first.post('crash', '/queue followup').then(() => first.post('crash', 'after tag:k2'));
      await w1.wait('status', (d) => d.state === 'tool');
      const agentPid = Number(((await (await first.api('GET', '/api/status')).json()) as any).sessions[0].pid);
      await first.kill9();
      expect(states(home)[m.messageId]).toBe('running');

      const second = await startChild(config, { home, cwd: first.cwd });
      running.push(second);
      // The agent process the dead gateway left behind is stopped at the restart.
      await waitUntil(() => !pidAlive(agentPid), 10_000);
      const w2 = second.watch('crash', 0);
      await w2.ready;
      await w2.waitReply(queued.messageId, 'reply', 30_000);
      // The lane runs in order: a second reply to the crashed turn would come before this one.
      const sentinel = await second.post('crash', 'sentinel tag:k3');
      await w2.waitReply(sentinel.messageId, 'reply');
      const replies = w2.repliesFor(m.messageId, 'reply');
      expect(replies).toHaveLength(1);
      expect(replies[0]!.data.text).toBe('done ok');
      expect(w2.repliesFor(m.messageId, 'notice').map((e) => e.data.text)).toEqual([
        '↻ Rudder restarted while this message was being worked on; running it again on the resumed session.',
      ]);
      // The re-run saw the earlier history: same session resumed.
      expect(
        mock
          .mainRequests()
          .filter((q) => q.lastText.includes('tag:k1'))
          .at(-1)!.historyText,
      ).toContain('tag:k0');
      const final = states(home);
      expect(Object.entries(final).filter(([, s]) => OPEN.includes(s))).toEqual([]);
      expect(final[m.messageId]).toBe('answered');
      expect(final[queued.messageId]).toBe('answered');

      // A further restart delivers nothing twice.
      await second.stop();
      const third = await startChild(config, { home, cwd: first.cwd });
      running.push(third);
      const w3 = third.watch('crash', 0);
      await w3.ready;
      // Owed replies go out at the start, before a new message's reply.
      const after = await third.post('crash', 'after the restart tag:k4');
      await w3.waitReply(after.messageId, 'reply');
      const outboxIds = w3.of('reply').map((e) => e.data.outboxId);
      expect(new Set(outboxIds).size).toBe(outboxIds.length);
      expect(w3.repliesFor(m.messageId, 'reply')).toHaveLength(1);
    },
  );

  it('an owed reply left by a crash is delivered exactly once at the next start', async () => {
    const home = tempDir('rhome');
    // The state a crash leaves between committing a reply and delivering it.
    const store = new Store(path.join(home, 'rudder.db'));
    store.ensureConversation('web:owed', 'web', 'owed');
    const { row } = store.insertMessage({
      conversationId: 'web:owed',
      channel: 'web',
      platformMessageId: 'p1',
      senderId: 'owner',
      text: 'question',
      state: 'answered',
    });
    const owed = store.addOutbox({
      conversationId: 'web:owed',
      kind: 'reply',
      messageIds: [row.id],
      text: 'the owed answer',
    });
    await store.close();
    const gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) }, { home });
    running.push(gw);
    const w = gw.watch('owed', 0);
    await w.ready;
    await w.wait('reply', (d) => d.outboxId === owed.id);
    await gw.stop();
    running.pop();
    const again = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) }, { home });
    running.push(again);
    const w2 = again.watch('owed', 0);
    await w2.ready;
    // Owed replies go out at the start, before a new message's reply.
    const after = await again.post('owed', 'after the restart tag:o1');
    await w2.waitReply(after.messageId, 'reply');
    expect(w2.of('reply', (d) => d.outboxId === owed.id)).toHaveLength(1);
    expect(again.gw.services.store.owedCount()).toBe(0);
  });

  it(
    'an agent that dies on every attempt: one re-run notice, then a failure that does not promise another ' + 'run',
    async () => {
      const gw = await startInProcess({
        agent: {
          ...agentConfig(mock.url, tempDir('chome')),
          claudeBin: FAKE_CLAUDE,
          env: { FAKE_CLAUDE_MODE: 'midframe' },
        },
      });
      running.push(gw);
      const w = gw.watch('poison');
      await w.ready;
      const m = await gw.post('poison', 'this kills it every time');
      await w.wait(
        'reply',
        (d) => (d.messageIds as string[]).includes(m.messageId) && String(d.text).startsWith('⚠️'),
        20_000,
      );
      const notices = w.repliesFor(m.messageId, 'notice').map((e) => String(e.data.text));
      expect(notices).toEqual([
        '↻ The agent stopped unexpectedly; running your message again on the resumed session.',
        '⚠️ The agent stopped in the middle of this turn twice, so it was not answered. The session is kept; ' +
          'send the message again to retry.',
      ]);
      const errors = w.of('error', (d) => (d.messageIds as string[]).includes(m.messageId));
      expect(errors).toHaveLength(2);
      for (const e of errors) expect(String(e.data.message)).not.toMatch(/will be run again/);
      expect(gw.gw.services.store.message(m.messageId)!.state).toBe('failed');
    },
  );

  it('a claude process killed mid-turn: the turn runs again on the resumed session', async () => {
    const gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
    running.push(gw);
    const w = gw.watch('kc');
    await w.ready;
    const a = await gw.post('kc', 'remember tag:kc0');
    await w.waitReply(a.messageId);
    const b = await gw.post('kc', 'slow [[bash:sleep 3]] tag:kc1');
    await w.wait('status', (d) => d.state === 'tool');
    const pid = gw.gw.services.registry.get('web:kc')!.pid()!;
    process.kill(pid, 'SIGKILL');
    const r = await w.waitReply(b.messageId, 'reply', 20_000);
    expect(r.data.text).toBe('done ok');
    expect(w.of('error', (d) => d.code === 'AGENT_CRASHED')).toHaveLength(1);
    // The person is told, before the answer, that the message runs again.
    const notices = w.repliesFor(b.messageId, 'notice');
    expect(notices.map((e) => e.data.text)).toEqual([
      '↻ The agent stopped unexpectedly; running your message again on the resumed session.',
    ]);
    expect(w.events.indexOf(notices[0]!)).toBeLessThan(w.events.indexOf(r));
    expect(mock.mainRequests().at(-1)!.historyText).toContain('tag:kc0');
    expect(gw.gw.services.store.message(b.messageId)!.state).toBe('answered');
  });
});

describe('a cut-off turn run again names the tool calls it had started (real CLI)', () => {
  const RERUN = '[Rudder] This message is being run again';
  /** The model, told of the earlier attempt, checks instead of running the command again. */
  const checkingModel = (req: MockRequest) =>
    !req.side && req.lastUserText.includes(RERUN)
      ? { kind: 'text' as const, text: 'checked: the line is there' }
      : undefined;

  it('after the agent process is killed -9 mid-tool', async () => {
    mock.setScript(checkingModel);
    const gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
    running.push(gw);
    const w = gw.watch('rerun1');
    await w.ready;
    const file = `${tempDir('rerun')}/f`;
    const m = await gw.post('rerun1', `append [[bash:echo one >> ${file}; sleep 30]] tag:rr1`);
    await waitUntil(() => fs.existsSync(file), 20_000);
    process.kill(gw.gw.services.registry.get('web:rerun1')!.pid()!, 'SIGKILL');
    const r = await w.waitReply(m.messageId, 'reply', 30_000);
    expect(r.data.text).toBe('checked: the line is there');
    const again = mock
      .mainRequests()
      .find((q) => q.lastUserText.includes(RERUN) && q.lastUserText.includes('tag:rr1'))!;
    expect(again.lastUserText).toContain('cut off because the agent process stopped unexpectedly');
    expect(again.lastUserText).toContain(`1. Bash: echo one >> ${file}; sleep 30`);
    expect(again.lastUserText).toContain('Check what they did before you run any of them again.');
    // The note is Rudder's: outside the wrapper, before the message it is about.
    const note = again.lastUserText.indexOf(RERUN);
    expect(note).toBeLessThan(again.lastUserText.lastIndexOf('<<<EXTERNAL_USER_MESSAGE'));
    expect(again.lastUserText.slice(note).split('<<<EXTERNAL_USER_MESSAGE')[0]).not.toContain('tag:rr1');
  });

  it('after the gateway is killed -9 mid-tool and restarted', async () => {
    const home = tempDir('rhome');
    const config = { agent: agentConfig(mock.url, tempDir('chome')) };
    const first = await startChild(config, { home });
    const w1 = first.watch('rerun2');
    await w1.ready;
    const file = `${tempDir('rerun')}/f`;
    const m = await first.post('rerun2', `append [[bash:echo one >> ${file}; sleep 30]] tag:rr2`);
    await waitUntil(() => fs.existsSync(file), 20_000);
    await first.kill9();
    mock.setScript(checkingModel);
    const second = await startChild(config, { home, cwd: first.cwd });
    running.push(second);
    const w2 = second.watch('rerun2', 0);
    await w2.ready;
    const r = await w2.waitReply(m.messageId, 'reply', 30_000);
    expect(r.data.text).toBe('checked: the line is there');
    const again = mock
      .mainRequests()
      .find((q) => q.lastUserText.includes(RERUN) && q.lastUserText.includes('tag:rr2'))!;
    expect(again.lastUserText).toContain('cut off because Rudder (the gateway between you and the person) restarted');
    expect(again.lastUserText).toContain(`1. Bash: echo one >> ${file}; sleep 30`);
    expect(states(home)[m.messageId]).toBe('answered');
  });
});
