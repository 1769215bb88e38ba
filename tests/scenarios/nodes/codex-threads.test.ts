/**
 * A Codex project on a node: /sessions on the front lists the threads of the node's app-server (the
 * node asks thread/list on its machine) and /resume binds one, so the next message continues that
 * thread there with its history; `rudder attach` gives the node's line that resumes the thread in Codex's TUI
 * there and holds the conversation's messages until it is handed back. The real codex binary on the node against
 * the mock Responses API.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexAgent, sentTimes } from '../../support/codex-gateway.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { type MockResponses, startMockResponses } from '../../support/mock-responses.js';
import { answerOf, type Cluster, conversationIn, startCluster } from '../../support/nodes-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let claudeMock: MockApi;
let mock: MockResponses;
let cl: Cluster;

beforeAll(async () => {
  claudeMock = await startMockApi();
  mock = await startMockResponses();
  cl = await startCluster(claudeMock.url, [{ name: 'cx', projects: ['thr'], agent: codexAgent(mock.url) }]);
}, 240_000);
afterAll(async () => {
  await cl?.stop();
  await mock?.close();
  await claudeMock?.close();
});

const say = (c: string, text: string, kind?: 'reply') => answerOf(cl, c, text, kind);

/** The thread the model was asked in with this tag. */
const threadOf = (tag: string) => mock.requests.find((q) => q.userTexts.some((t) => t.includes(tag)))?.threadId;

describe('Codex threads of a node project (real codex on the node)', { timeout: 180_000 }, () => {
  it('/sessions on the front lists them; /resume continues one there with its history', async () => {
    const a = await conversationIn(cl.front, 'thr');
    expect(await say(a, 'first node thread tag:n1', 'reply')).toBe('ok tag:n1');
    await say(a, '/new');
    expect(await say(a, 'second node thread tag:n2', 'reply')).toBe('ok tag:n2');
    const [first, second] = [threadOf('tag:n1')!, threadOf('tag:n2')!];
    expect(first).not.toBe(second);

    const b = await conversationIn(cl.front, 'thr');
    const list = await say(b, '/sessions');
    expect(list).toContain('Codex threads in thr (on node cx)');
    const lines = list.split('\n').filter((l) => /^\d+\. /.test(l));
    const one = lines.find((l) => l.includes(first));
    expect(one).toContain('“first node thread tag:n1”');
    expect(lines.find((l) => l.includes(second))).toContain('“second node thread tag:n2”');

    expect(await say(b, `/resume ${one!.split('.')[0]}`)).toContain(`continues session ${first}`);
    expect(await say(b, 'go on tag:n3', 'reply')).toBe('ok tag:n3');
    const asked = mock.requests.filter((q) => q.userTexts.some((t) => t.includes('tag:n3')));
    expect(asked.map((q) => q.threadId)).toEqual([first]);
    expect(asked[0]!.historyTexts.some((t) => t.includes('first node thread tag:n1'))).toBe(true);
    expect(sentTimes(mock.requests, 'tag:n3')).toBe(1);
  });

  it("rudder attach prints the node's resume line; messages wait until the thread is handed back", async () => {
    const c = await conversationIn(cl.front, 'thr');
    expect(await say(c, 'a thread to hand over tag:n4', 'reply')).toBe('ok tag:n4');
    const thread = threadOf('tag:n4')!;
    const env = cleanEnv({ RUDDER_URL: cl.front.ep.base, RUDDER_TOKEN: cl.front.ep.token });
    const plan = await (await cl.front.api('GET', `/api/conversations/${c}/terminal`)).json();
    expect(plan).toMatchObject({ way: 'codex', busy: false, node: 'cx' });

    const printed = await runCli(['attach', c], { env, timeoutMs: cl.budget() });
    expect(printed.status, printed.stderr).toBe(0);
    // The directory is the project's on the node's machine.
    const dir = /^\S*codex resume -C (\S+) (\S+)$/.exec(printed.stdout.trim());
    expect(dir?.[2], printed.stdout).toBe(thread);
    expect(fs.realpathSync(dir![1]!)).toBe(fs.realpathSync(cl.nodes.cx!.dirs.thr!));
    expect(printed.stderr).toContain("Run it on node cx's machine");

    const w = cl.front.watch(c);
    await w.ready;
    const during = await cl.front.post(c, 'while codex has it tag:n5');
    expect(during.disposition).toBe('queued');
    await w.wait('ack', (d) => d.messageId === during.messageId && String(d.note).includes('open in a terminal'));
    expect(sentTimes(mock.requests, 'tag:n5')).toBe(0);

    const back = await runCli(['attach', c, '--done'], { env, timeoutMs: cl.budget() });
    expect(back.stderr).toContain('1 held message(s) now run');
    await w.waitReply(during.messageId, 'reply', cl.budget());
    w.close();
    expect(sentTimes(mock.requests, 'tag:n5')).toBe(1);
    expect(mock.requests.filter((q) => q.userTexts.some((t) => t.includes('tag:n5'))).map((q) => q.threadId)).toEqual([
      thread,
    ]);
  });
});
