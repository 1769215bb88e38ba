/**
 * The codex backend through a real gateway when turns are cut short: /stop during a command, the
 * app-server killed -9 mid-turn (a shared one: only the turns it cut off run again), and the
 * gateway killed -9 mid-turn and started again (an out-of-process gateway, as `npm start` runs it).
 * The real codex binary against the mock Responses API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HELD_NOTE } from '../../../src/agents/codex/codex-session.js';
import { OPEN_STATES } from '../../../src/store/types.js';
import { pidAlive, tempDir, waitUntil } from '../../support/claude-rig.js';
import {
  codexAgent,
  copiesInLast,
  roundTripBudget,
  sentTimes,
  storedSession,
  storedStates,
} from '../../support/codex-gateway.js';
import { startChild, startInProcess } from '../../support/gateway-rig.js';
import { type MockResponses, type ResponsesRequest, startMockResponses } from '../../support/mock-responses.js';

let mock: MockResponses;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 60_000;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  mock = await startMockResponses();
  gw = await startInProcess({ agent: codexAgent(mock.url) });
  budget = await roundTripBudget(gw, 'budget');
}, 120_000);
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.stop()));
  mock.setScript(undefined);
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

const RERUN = '[Rudder] This message is being run again';
const CRASH_NOTICE = '↻ The agent stopped unexpectedly; running your message again on the resumed session.';
const RESTART_NOTICE =
  '↻ Rudder restarted while this message was being worked on; running it again on the resumed session.';

/** The model, told of the earlier attempt, checks instead of running the command again. */
const checkingModel = (req: ResponsesRequest) =>
  req.lastUserText.includes(RERUN)
    ? { kind: 'reply' as const, parts: [{ kind: 'text' as const, text: 'checked: the line is there' }] }
    : undefined;

async function statusPid(g: { api(m: string, p: string): Promise<Response> }, conv: string): Promise<number> {
  const status = (await (await g.api('GET', '/api/status')).json()) as any;
  return status.sessions.find((s: { conversationId: string }) => s.conversationId === `web:${conv}`).pid;
}

describe('/stop during a command (real codex)', () => {
  it("ends the command's process before it answers; the thread lives, the next message sees the history", async () => {
    const w = gw.watch('stop');
    await w.ready;
    const pidFile = path.join(tempDir('codex-stop'), 'pid');
    const a = await gw.post('stop', `long [[exec:echo $$ > ${pidFile}; exec sleep 30]] tag:sp1`);
    await waitUntil(() => fs.existsSync(pidFile) && /\d+/.test(fs.readFileSync(pidFile, 'utf8')), budget);
    const sleeper = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(pidAlive(sleeper)).toBe(true);
    const thread = gw.gw.services.store.conversation('web:stop')!.sessionId;
    const stop = await gw.post('stop', '/stop');
    expect(stop.disposition).toBe('command');
    const told = await w.waitReply(stop.messageId, undefined, budget);
    // Codex leaves the command running after turn/interrupt: Rudder ended it before saying it stopped.
    expect(pidAlive(sleeper)).toBe(false);
    expect(told.data.text).toMatch(/^⏹ Stopped the running turn/);
    await waitUntil(() => gw.gw.services.store.message(a.messageId)!.state === 'stopped', budget);
    expect(w.repliesFor(a.messageId, 'reply')).toHaveLength(0);
    const b = await gw.post('stop', 'what did I ask? tag:sp2');
    const r = await w.waitReply(b.messageId, 'reply', budget);
    // Codex hands the model the stopped command's outcome with the next message (the mock then says `done`).
    expect(r.data.text).toMatch(/^(done )?ok tag:sp2$/);
    const req = mock.requests.find((q) => q.userTexts.some((t) => t.includes('tag:sp2')))!;
    expect(req.threadId).toBe(thread);
    expect(copiesInLast(mock.requests, 'tag:sp1')).toBe(1);
    expect(sentTimes(mock.requests, 'tag:sp1')).toBe(1);
    expect(gw.gw.services.store.message(b.messageId)!.state).toBe('answered');
  });
});

describe('kill -9 of the shared app-server mid-turn (real codex)', () => {
  it('the turns it cut off run again once on their resumed threads; an idle conversation is untouched', async () => {
    const convs = ['kA', 'kB', 'kC'];
    const ws = convs.map((c) => gw.watch(c));
    await Promise.all(ws.map((w) => w.ready));
    const warm = await Promise.all(convs.map((c) => gw.post(c, `remember tag:${c}0`)));
    await Promise.all(warm.map((m, i) => ws[i]!.waitReply(m.messageId, 'reply', budget)));
    const threads = convs.map((c) => gw.gw.services.store.conversation(`web:${c}`)!.sessionId);
    // kA and kB run a command when the server dies; kC is idle.
    const dir = tempDir('codex-kill');
    const pidFiles = convs.slice(0, 2).map((c) => path.join(dir, c));
    const busy = await Promise.all(
      convs.slice(0, 2).map((c, i) => gw.post(c, `slow [[exec:echo $$ > ${pidFiles[i]}; exec sleep 30]] tag:${c}1`)),
    );
    await Promise.all(ws.slice(0, 2).map((w) => w.wait('status', (d) => d.state === 'tool', budget)));
    await waitUntil(() => pidFiles.every((f) => fs.existsSync(f) && /\d/.test(fs.readFileSync(f, 'utf8'))), budget);
    const sleepers = pidFiles.map((f) => Number(fs.readFileSync(f, 'utf8')));
    const pid = await statusPid(gw, 'kA');
    expect(await statusPid(gw, 'kB')).toBe(pid);
    process.kill(pid, 'SIGKILL');
    const replies = await Promise.all(busy.map((m, i) => ws[i]!.waitReply(m.messageId, 'reply', budget)));
    for (const [i, r] of replies.entries()) {
      const c = convs[i]!;
      expect(r.data.text).toMatch(/^(done )?ok$/);
      expect(ws[i]!.repliesFor(busy[i]!.messageId, 'notice').map((e) => e.data.text)).toEqual([CRASH_NOTICE]);
      // Resumed: the same thread, the earlier history, the cut-off input once, and only the note sent again.
      const again = mock.requests.filter((q) => q.threadId === threads[i] && q.lastUserText.includes(RERUN));
      expect(again).toHaveLength(1);
      expect(again[0]!.lastUserText).toContain(HELD_NOTE);
      expect(again[0]!.lastUserText).toContain(`1. Bash: echo $$ > ${pidFiles[i]}; exec sleep 30`);
      expect(again[0]!.historyTexts.join('\n')).toContain(`tag:${c}0`);
      expect(copiesInLast(mock.requests, `tag:${c}1`)).toBe(1);
      expect(sentTimes(mock.requests, `tag:${c}1`)).toBe(1);
      expect(gw.gw.services.store.message(busy[i]!.messageId)!.state).toBe('answered');
    }
    expect(await statusPid(gw, 'kA')).not.toBe(pid);
    // The commands the dead server had started did not outlive it.
    await waitUntil(() => sleepers.every((p) => !pidAlive(p)), budget);
    // The idle conversation was told nothing and goes on with its history on the new server.
    const c = await gw.post('kC', 'still there? tag:kC2');
    expect((await ws[2]!.waitReply(c.messageId, 'reply', budget)).data.text).toBe('ok tag:kC2');
    expect(ws[2]!.of('reply', (d) => d.kind === 'notice')).toHaveLength(0);
    const req = mock.requests.find((q) => q.userTexts.some((t) => t.includes('tag:kC2')))!;
    expect(req.threadId).toBe(threads[2]);
    expect(req.historyTexts.join('\n')).toContain('tag:kC0');
    expect(
      gw.gw.services.store.db
        .prepare("SELECT count(*) AS n FROM events WHERE type = 'error' AND conversation_id = 'web:kC'")
        .get(),
    ).toEqual({ n: 0 });
    const sentinels = await Promise.all(convs.slice(0, 2).map((cv) => gw.post(cv, `after tag:${cv}9`)));
    await Promise.all(sentinels.map((m, i) => ws[i]!.waitReply(m.messageId, 'reply', budget)));
    for (const [i, m] of busy.entries()) expect(ws[i]!.repliesFor(m.messageId, 'reply')).toHaveLength(1);
  });
});

describe('kill -9 of Rudder mid-turn, and a restart (real codex)', () => {
  it('the cut-off message runs again once on the resumed thread, the note naming the command', async () => {
    const home = tempDir('rhome');
    const config = { agent: codexAgent(mock.url) };
    const first = await startChild(config, { home });
    const w1 = first.watch('rs');
    await w1.ready;
    const warm = await first.post('rs', 'remember tag:rs0');
    await w1.waitReply(warm.messageId, 'reply', budget);
    const thread = storedSession(home, 'web:rs');
    const file = `${tempDir('codex-rerun')}/f`;
    const pidFile = `${file}.pid`;
    const m = await first.post(
      'rs',
      `append [[exec:echo one >> ${file}; echo $$ > ${pidFile}; exec sleep 30]] tag:rs1`,
    );
    await waitUntil(() => fs.existsSync(pidFile) && /\d/.test(fs.readFileSync(pidFile, 'utf8')), budget);
    const sleeper = Number(fs.readFileSync(pidFile, 'utf8'));
    // The command is recorded as started (the step reached the page): the note can name it.
    await w1.wait('status', (d) => d.state === 'tool', budget);
    const server = await statusPid(first, 'rs');
    await first.kill9();
    expect(storedStates(home)[m.messageId]).toBe('running');
    mock.setScript(checkingModel);
    const second = await startChild(config, { home, cwd: first.cwd });
    running.push(second);
    // What the dead gateway left (the app-server and the command it ran) is stopped at the restart.
    await waitUntil(() => !pidAlive(server) && !pidAlive(sleeper), budget);
    const w2 = second.watch('rs', 0);
    await w2.ready;
    const r = await w2.waitReply(m.messageId, 'reply', budget);
    expect(r.data.text).toBe('checked: the line is there');
    expect(w2.repliesFor(m.messageId, 'notice').map((e) => e.data.text)).toEqual([RESTART_NOTICE]);
    const again = mock.requests.filter((q) => q.lastUserText.includes(RERUN) && q.threadId === thread);
    expect(again).toHaveLength(1);
    expect(again[0]!.lastUserText).toContain(
      'cut off because Rudder (the gateway between you and the person) restarted',
    );
    expect(again[0]!.lastUserText).toContain(`1. Bash: echo one >> ${file}; echo $$ > ${pidFile}; exec sleep 30`);
    expect(again[0]!.historyTexts.join('\n')).toContain('tag:rs0');
    expect(copiesInLast(mock.requests, 'tag:rs1')).toBe(1);
    expect(fs.readFileSync(file, 'utf8')).toBe('one\n');
    // The lane runs in order: a second reply to the cut-off message would come before this one.
    const sentinel = await second.post('rs', 'sentinel tag:rs2');
    await w2.waitReply(sentinel.messageId, 'reply', budget);
    expect(w2.repliesFor(m.messageId, 'reply')).toHaveLength(1);
    const states = storedStates(home);
    expect(states[m.messageId]).toBe('answered');
    expect(Object.values(states).filter((s) => OPEN_STATES.includes(s as never))).toEqual([]);
  });
});
