/**
 * Commands, rate-limit fallback, permission relay and the steering switch, end to end through the
 * HTTP API on the real CLI and the mock Messages API.
 */
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockAgentEnv, pidAlive, recordingLogger, tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../support/fake-openai.js';
import { agentConfig, startInProcess, writeConfig } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi, wrappedCopies } from '../../support/mock-anthropic.js';

let mock: MockApi;
let openai: FakeOpenAi;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  mock = await startMockApi();
  openai = await startFakeOpenAi('the local model says hi');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.stop()));
  mock.setScript(undefined);
});
afterAll(async () => {
  await mock.close();
  await openai.close();
});

async function gateway(config: Record<string, unknown> = {}, opts: Parameters<typeof startInProcess>[1] = {}) {
  const gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')), ...config }, opts);
  running.push(gw);
  return gw;
}

describe('commands (real CLI)', () => {
  it('/stop mid-turn shows stopped within 2 s, and the next message continues the same session', async () => {
    const gw = await gateway();
    const w = gw.watch('stop1');
    await w.ready;
    const first = await gw.post('stop1', 'remember tag:s0');
    await w.waitReply(first.messageId);
    const a = await gw.post('stop1', 'long [[bash:echo start; sleep 30]] tag:s1');
    await w.wait('status', (d) => d.state === 'tool');
    const pid = gw.gw.services.registry.get('web:stop1')!.pid()!;
    const t0 = Date.now();
    const stop = await gw.post('stop1', '/stop');
    expect(stop.disposition).toBe('command');
    await w.wait('ack', (d) => d.messageId === a.messageId && d.kind === 'stopped', 2000);
    expect(Date.now() - t0).toBeLessThan(2000);
    const notice = await w.waitReply(stop.messageId);
    expect(notice.data.text).toMatch(/Stopped/);
    expect(pidAlive(pid)).toBe(true);
    const next = await gw.post('stop1', 'continue tag:s2');
    expect(next.disposition).toBe('turn');
    const r = await w.waitReply(next.messageId);
    expect(r.data.text).toContain('ok tag:s2');
    expect(mock.mainRequests().at(-1)!.historyText).toContain('tag:s0');
    expect(gw.gw.services.store.message(a.messageId)!.state).toBe('stopped');
  });

  it('a bare "stop" clears the queue too, and /clear starts a fresh session', async () => {
    const gw = await gateway();
    const w = gw.watch('clr');
    await w.ready;
    await gw.post('clr', '/queue followup');
    const a = await gw.post('clr', 'long [[bash:echo start; sleep 30]]');
    await w.wait('status', (d) => d.state === 'tool');
    const q = await gw.post('clr', 'waiting tag:q');
    expect(q.disposition).toBe('queued');
    await gw.post('clr', 'stop');
    await waitUntil(() => gw.gw.services.store.message(q.messageId)!.state === 'stopped');
    expect(gw.gw.services.store.message(a.messageId)!.state).toBe('stopped');
    const sessionBefore = gw.gw.services.store.conversation('web:clr')!.sessionId;
    expect(sessionBefore).toBeTruthy();
    await gw.post('clr', '/clear');
    await waitUntil(() => gw.gw.services.store.conversation('web:clr')!.sessionId === null);
    const n = await gw.post('clr', 'fresh tag:n');
    await w.waitReply(n.messageId);
    expect(gw.gw.services.store.conversation('web:clr')!.sessionId).not.toBe(sessionBefore);
    expect(mock.mainRequests().at(-1)!.historyText).not.toContain('waiting tag:q');
  });

  it('/model restarts the live process with --model on the next turn', async () => {
    const gw = await gateway();
    const w = gw.watch('mdl');
    await w.ready;
    const a = await gw.post('mdl', 'hi');
    await w.waitReply(a.messageId);
    const pid = gw.gw.services.registry.get('web:mdl')!.pid()!;
    await gw.post('mdl', '/model claude-mock-9');
    await waitUntil(() => !pidAlive(pid));
    const b = await gw.post('mdl', 'again');
    await w.waitReply(b.messageId);
    expect(mock.mainRequests().at(-1)!.body.model).toBe('claude-mock-9');
    expect(gw.gw.services.registry.get('web:mdl')!.pid()).not.toBe(pid);
  });

  it('/help, /status and /queue answer without reaching the agent', async () => {
    const gw = await gateway();
    const w = gw.watch('cmds');
    await w.ready;
    const before = mock.requests.length;
    for (const c of ['/help', '/status', '/queue', '/queue bogus', '/frobnicate']) {
      const r = await gw.post('cmds', c);
      expect(r.disposition).toBe('command');
      await w.waitReply(r.messageId);
    }
    const texts = w.of('reply').map((e) => String(e.data.text));
    expect(texts[0]).toContain('/stop');
    expect(texts[1]).toContain('Queue mode: steer');
    expect(texts[1]).toMatch(
      /Idle agent processes kept warm: \d+ of maxLive [2-8] \(from [\d.]+ GB available memory: one per 2 GB, 2\.\.8\)/,
    );
    expect(texts[3]).toContain('Unknown queue mode "bogus"');
    expect(texts[4]).toContain('Unknown command /frobnicate');
    expect(mock.requests.length).toBe(before);
  });
});

describe('rate limits (real CLI)', () => {
  it('answers from the local model, then re-runs the message on Claude after resetsAt', async () => {
    // The limit resets 3 s after the first 429, however long the start took on a busy machine.
    let resetsAt = 0;
    let limited = true;
    mock.setScript((req) => {
      if (req.side || !limited || !req.lastText.includes('tag:rl1')) return undefined;
      resetsAt ||= Math.floor(Date.now() / 1000) + 3;
      return { kind: 'error', status: 429, style: 'subscription', resetsAt };
    });
    // Subscription style needs an OAuth token instead of an API key.
    const agent = {
      ...agentConfig(mock.url, tempDir('chome')),
      env: mockAgentEnv(mock.url, tempDir('chome'), { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-test' }),
    };
    const gw = await gateway({ agent, fallback: { baseURL: openai.baseURL, model: 'local-model' } });
    const w = gw.watch('rl');
    await w.ready;
    const m = await gw.post('rl', 'please tag:rl1');
    const fb = await w.wait(
      'reply',
      (d) => (d.messageIds as string[]).includes(m.messageId) && d.fromFallback === true,
    );
    expect(fb.data.text).toContain('the local model says hi');
    expect(fb.data.text).toMatch(/rate limited until \d\d:\d\d UTC/);
    expect(openai.requests.at(-1)!.body.messages.at(-1).content).toContain('tag:rl1');
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('deferred');
    limited = false;
    const real = await w.wait(
      'reply',
      (d) => (d.messageIds as string[]).includes(m.messageId) && d.fromFallback === false,
      15_000,
    );
    expect(real.data.text).toBe('ok tag:rl1');
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
  });

  it('without a fallback, says when the limit resets and keeps the message', async () => {
    mock.setScript((req) =>
      !req.side && req.lastText.includes('tag:rl2') ? { kind: 'error', status: 429, style: 'apikey' } : undefined,
    );
    const gw = await gateway();
    const w = gw.watch('rl2');
    await w.ready;
    const m = await gw.post('rl2', 'please tag:rl2');
    const n = await w.waitReply(m.messageId);
    expect(n.data.kind).toBe('notice');
    expect(n.data.text).toMatch(/Claude is rate limited until \d\d:\d\d UTC \(estimated\)\. Your message is kept/);
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('deferred');
    // The 429 came from the script, not the text: with the script gone the re-run is answered.
    mock.setScript(undefined);
    const retry = await gw.post('rl2', '/retry');
    await w.waitReply(retry.messageId);
    const answer = await w.waitReply(m.messageId, 'reply', 15_000);
    expect(answer.data.text).toBe('ok tag:rl2');
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
  });
});

describe('rate limits: a held message runs again without reaching the model twice', () => {
  it('at /retry: the re-run sends no second copy, and the reply answers it', async () => {
    let limited = true;
    mock.setScript((req) =>
      !req.side && limited && req.lastText.includes('tag:rl18')
        ? { kind: 'error', status: 429, style: 'apikey' }
        : undefined,
    );
    const gw = await gateway();
    const w = gw.watch('rl18');
    await w.ready;
    const m = await gw.post('rl18', 'please tag:rl18');
    await w.waitReply(m.messageId, 'notice');
    limited = false;
    const before = mock.mainRequests().length;
    await gw.post('rl18', '/retry');
    const answer = await w.waitReply(m.messageId, 'reply', 20_000);
    expect(answer.data.text).toBe('ok tag:rl18');
    const rerun = mock.mainRequests().slice(before);
    expect(rerun.length).toBeGreaterThan(0);
    expect(rerun[0]!.lastUserText).toContain(
      "[Rudder] Your reply to the person's latest message(s) above did not get through: the request hit a rate limit.",
    );
    for (const q of mock.mainRequests().filter((r) => r.historyText.includes('tag:rl18')))
      expect(wrappedCopies(q, 'tag:rl18')).toBe(1);
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
  });

  it(
    'a 429 after a steer was taken in: both run again together, answered once, each reaching the model ' + 'once',
    async () => {
      let limited = true;
      mock.setScript((req) =>
        !req.side && limited && req.afterTool && req.lastUserText.includes('tag:rl20b')
          ? { kind: 'error', status: 429, style: 'apikey' }
          : undefined,
      );
      const gw = await gateway();
      const w = gw.watch('rl20');
      await w.ready;
      const a = await gw.post('rl20', 'work [[bash:sleep 3]] tag:rl20a');
      await w.wait('status', (d) => d.state === 'tool');
      const b = await gw.post('rl20', 'also tag:rl20b');
      expect(b.disposition).toBe('steered');
      await w.waitReply(a.messageId, 'notice');
      limited = false;
      const before = mock.mainRequests().length;
      await gw.post('rl20', '/retry');
      const answer = await w.wait(
        'reply',
        (d) => d.kind === 'reply' && (d.messageIds as string[]).includes(a.messageId),
        20_000,
      );
      expect(answer.data.messageIds).toEqual([a.messageId, b.messageId]);
      const rerun = mock.mainRequests().slice(before);
      expect(rerun[0]!.lastUserText.split('[Rudder] Your reply').length).toBe(2); // one note for both
      for (const q of mock.mainRequests().filter((r) => r.historyText.includes('tag:rl20'))) {
        expect(wrappedCopies(q, 'tag:rl20a')).toBe(1);
        expect(wrappedCopies(q, 'tag:rl20b')).toBeLessThanOrEqual(1);
      }
      expect(wrappedCopies(rerun.at(-1)!, 'tag:rl20b')).toBe(1);
      const sentinel = await gw.post('rl20', 'after tag:rl20z');
      await w.waitReply(sentinel.messageId, 'reply');
      expect(
        w.of(
          'reply',
          (d) =>
            d.kind === 'reply' && (d.messageIds as string[]).some((id) => id === a.messageId || id === b.messageId),
        ),
      ).toHaveLength(1);
    },
  );

  it(
    'when the limit resets on its timer, with a message queued meanwhile on top: each reaches the model ' + 'once',
    async () => {
      // The limit resets 6 s after the first 429, whenever that comes.
      let resetsAt = 0;
      mock.setScript((req) => {
        if (req.side || !req.lastText.includes('first tag:rl19')) return undefined;
        resetsAt ||= Math.floor(Date.now() / 1000) + 6;
        return Date.now() < resetsAt * 1000
          ? { kind: 'error', status: 429, style: 'subscription', resetsAt }
          : undefined;
      });
      const home = tempDir('chome');
      // A subscription login: its 429s carry the reset time.
      const gw = await gateway({
        agent: agentConfig(mock.url, home, {
          env: mockAgentEnv(mock.url, home, { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-test' }),
        }),
      });
      const w = gw.watch('rl19');
      await w.ready;
      const a = await gw.post('rl19', 'first tag:rl19');
      await w.waitReply(a.messageId, 'notice');
      const b = await gw.post('rl19', 'meanwhile tag:rl19b');
      expect(b.disposition).toBe('queued');
      const rb = await w.waitReply(b.messageId, 'reply', 30_000);
      expect(rb.data.text).toBe('ok tag:rl19b');
      expect((await w.waitReply(a.messageId, 'reply')).data.text).toBe('ok tag:rl19');
      const last = mock
        .mainRequests()
        .filter((q) => q.historyText.includes('tag:rl19b'))
        .at(-1)!;
      expect(wrappedCopies(last, 'first tag:rl19')).toBe(1);
      expect(wrappedCopies(last, 'meanwhile tag:rl19b')).toBe(1);
      for (const q of mock.mainRequests().filter((r) => r.historyText.includes('first tag:rl19')))
        expect(wrappedCopies(q, 'first tag:rl19')).toBe(1);
    },
  );
});

describe('rate limits: an estimated reset time', () => {
  it('is marked "(estimated)" in every notice, not only the first, and in /status', async () => {
    mock.setScript((req) =>
      !req.side && req.lastUserText.includes('tag:rl6') ? { kind: 'error', status: 429, style: 'apikey' } : undefined,
    );
    const gw = await gateway();
    const w = gw.watch('rl6');
    await w.ready;
    const first = await gw.post('rl6', 'please tag:rl6');
    expect((await w.waitReply(first.messageId, 'notice')).data.text).toMatch(
      /rate limited until \d\d:\d\d UTC \(estimated\)/,
    );
    const second = await gw.post('rl6', 'and this tag:rl6b');
    expect(second.disposition).toBe('queued');
    expect((await w.waitReply(second.messageId, 'notice')).data.text).toMatch(
      /rate limited until \d\d:\d\d UTC \(estimated\)/,
    );
    const status = await gw.post('rl6', '/status');
    expect((await w.waitReply(status.messageId)).data.text).toMatch(/Rate limited until \S+ \(estimated\)/);
  });
});

describe('permission relay (real CLI)', () => {
  it('relays a tool permission request; approving runs the tool, denying is reported', async () => {
    const gw = await gateway({ agent: agentConfig(mock.url, tempDir('chome'), { permissionMode: 'relay' }) });
    const w = gw.watch('perm');
    await w.ready;
    const marker = `${tempDir('perm')}/made-by-tool`;
    const a = await gw.post('perm', `[[bash:touch ${marker}]] tag:p1`);
    const p = await w.wait('permission', (d) => !d.resolved);
    expect(p.data.toolName).toBe('Bash');
    expect((p.data.input as { command: string }).command).toBe(`touch ${marker}`);
    const res = await gw.api('POST', `/api/conversations/perm/permissions/${p.data.requestId}`, { allow: true });
    expect(res.status).toBe(200);
    await w.waitReply(a.messageId);
    expect(fs.existsSync(marker)).toBe(true);

    const denied = `${tempDir('perm')}/never-made`;
    const b = await gw.post('perm', `[[bash:touch ${denied}]] tag:p2`);
    const p2 = await w.wait('permission', (d) => !d.resolved && d.requestId !== p.data.requestId);
    expect(
      (await gw.api('POST', `/api/conversations/perm/permissions/${p2.data.requestId}`, { allow: false })).status,
    ).toBe(200);
    await w.waitReply(b.messageId);
    expect(fs.existsSync(denied)).toBe(false);
    expect(mock.mainRequests().at(-1)!.lastUserText).toContain('The person denied this.');
    const again = await gw.api('POST', `/api/conversations/perm/permissions/${p2.data.requestId}`, { allow: true });
    expect(again.status).toBe(404);
  });
});

describe('the steering switch (real CLI)', () => {
  it(
    'is read per message: turning it off queues a message sent mid-turn instead of steering it; the agent ' +
      'process stays',
    async () => {
      const { logger, records } = recordingLogger();
      const gw = await gateway({}, { logger });
      const w = gw.watch('sw');
      await w.ready;
      const a = await gw.post('sw', 'hello');
      await w.waitReply(a.messageId);
      const pid = gw.gw.services.registry.get('web:sw')!.pid()!;
      const cfg = JSON.parse(fs.readFileSync(gw.configFile, 'utf8'));
      writeConfig(gw.cwd, { ...cfg, steering: { enabled: false } });
      await waitUntil(() => gw.gw.services.config.current().steering.enabled === false);
      const b = await gw.post('sw', 'work [[bash:sleep 2]]');
      await w.wait('status', (d) => d.state === 'tool' && d.messageId === b.messageId);
      const c = await gw.post('sw', 'mid-turn tag:sw');
      expect(c.disposition).toBe('queued');
      expect(
        records.some(
          (r) => r.msg === 'message queued' && /steering is off \(steering.enabled is false\)/.test(String(r.reason)),
        ),
      ).toBe(true);
      expect(
        records.some((r) => r.msg === 'steering turned off: messages sent mid-turn wait in line from now on'),
      ).toBe(true);
      const r = await w.waitReply(c.messageId);
      expect(r.data.messageIds).toEqual([c.messageId]);
      // The same process ran every turn: steering off does not cost a process per turn.
      expect(gw.gw.services.registry.get('web:sw')!.pid()).toBe(pid);
    },
  );

  it('RUDDER_STEERING=off wins over the config', async () => {
    const gw = await gateway({ steering: { enabled: true } }, { env: { RUDDER_STEERING: 'off' } });
    const w = gw.watch('env');
    await w.ready;
    await gw.post('env', 'work [[bash:sleep 2]]');
    await w.wait('status', (d) => d.state === 'tool');
    expect((await gw.post('env', 'mid tag:e')).disposition).toBe('queued');
    const status = (await (await gw.api('GET', '/api/status')).json()) as any;
    expect(status.steering).toMatchObject({ on: false, reason: 'RUDDER_STEERING=off' });
  });
});
