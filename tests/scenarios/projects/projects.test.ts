/**
 * Projects end to end through the HTTP API, on the real CLI and the mock Messages API: parallel
 * conversations in their own directories, a worktree per conversation, and a terminal session
 * picked up with /sessions and /resume.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Tmux } from '../../../src/agents/tmux/pane/tmux.js';
import { openSessions } from '../../../src/projects/sessions.js';
import { CLAUDE_BIN, rigEnv, tempDir, waitUntil } from '../../support/claude-rig.js';
import { startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, type EventWatch, startInProcess } from '../../support/gateway-rig.js';
import { gitRepo, runGit } from '../../support/git-rig.js';
import { type MockApi, type MockRequest, startMockApi } from '../../support/mock-anthropic.js';
import { privateSocket } from '../../support/tmux-rig.js';
import { claudeEnv, READY_SEED, seedHome, waitForExit } from '../../support/tui-rig.js';

let mock: MockApi;
const running: Array<{ stop(): Promise<void> }> = [];
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  mock = await startMockApi();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.stop()));
  for (const c of cleanups.splice(0)) await c();
});
afterAll(async () => {
  await mock.close();
});

const real = (p: string) => fs.realpathSync(p);

async function gateway(config: Record<string, unknown>, claudeHome = tempDir('chome')) {
  const gw = await startInProcess({ agent: agentConfig(mock.url, claudeHome), ...config });
  running.push(gw);
  return Object.assign(gw, { claudeHome });
}

type Gw = Awaited<ReturnType<typeof gateway>>;

/** Creates a web conversation in a project through the API; returns its id. */
async function create(gw: Gw, project?: string): Promise<string> {
  const r = await gw.api('POST', '/api/conversations', project ? { project } : {});
  expect(r.status).toBe(201);
  return ((await r.json()) as { id: string }).id;
}

/** Sends a command and returns the notice it got. */
async function command(gw: Gw, w: EventWatch, conv: string, text: string): Promise<string> {
  const r = await gw.post(conv, text);
  expect(r.disposition).toBe('command');
  return String((await w.waitReply(r.messageId, 'notice')).data.text);
}

/** The request that carried a Bash tool's result back to the model, for the turn tagged `tag`. */
const toolResultFor = (tag: string) => (r: MockRequest) => r.afterTool && r.historyText.includes(tag);

describe('projects (real CLI)', () => {
  it(
    'GET /api/projects, and POST /api/conversations with a project (an unknown one is a 400 naming the ' + 'others)',
    async () => {
      const api = real(tempDir('api'));
      const repo = gitRepo();
      const gw = await gateway({ projects: { api: { path: api }, repo: { path: repo, worktrees: true } } });
      const list = await (await gw.api('GET', '/api/projects')).json();
      expect(list).toEqual({
        projects: [
          { name: 'api', path: api, worktrees: false },
          { name: 'repo', path: repo, worktrees: true },
        ],
        defaultProject: 'api',
      });
      const made = await gw.api('POST', '/api/conversations', { title: 'on the repo', project: 'repo' });
      expect(made.status).toBe(201);
      const { id, project } = (await made.json()) as { id: string; project: string };
      expect(project).toBe('repo');
      const plain = await create(gw);
      for (const [body, reason] of [
        [{ project: 'nope' }, /There is no project "nope"\. Projects: api, repo\./],
        [{ project: 5 }, /"project" must be a project name/],
        [{ colour: 'red' }, /Unknown field\(s\): colour/],
      ] as const) {
        const r = await gw.api('POST', '/api/conversations', body);
        expect(r.status).toBe(400);
        expect(((await r.json()) as any).error.message).toMatch(reason);
      }
      const convs = ((await (await gw.api('GET', '/api/conversations')).json()) as any).conversations;
      expect(convs.find((c: any) => c.id === id)).toMatchObject({ title: 'on the repo', project: 'repo' });
      expect(convs.find((c: any) => c.id === plain)).toMatchObject({ project: 'api' });
    },
  );

  it('two conversations in two projects run at the same time, each in its own directory', async () => {
    const api = real(tempDir('api'));
    const web = real(tempDir('web'));
    const meet = real(tempDir('meet'));
    const gw = await gateway({ projects: { api: { path: api }, web: { path: web, model: 'claude-sonnet-4-5' } } });
    const a = await create(gw, 'api');
    const b = await create(gw, 'web');
    const wa = gw.watch(a);
    const wb = gw.watch(b);
    await Promise.all([wa.ready, wb.ready]);
    // Each waits (up to 30 s) for the other's mark: "both-running" shows only when both commands ran together.
    const meetCmd = (me: string, other: string) =>
      `pwd; touch ${meet}/${me}; for i in $(seq 300); do test -f ${meet}/${other} && echo both-running && ` +
      `break; sleep 0.1; done`;
    const [ma, mb] = await Promise.all([
      gw.post(a, `[[bash:${meetCmd('a', 'b')}]] tag:para`),
      gw.post(b, `[[bash:${meetCmd('b', 'a')}]] tag:parb`),
    ]);
    expect([ma.disposition, mb.disposition]).toEqual(['turn', 'turn']);
    await Promise.all([wa.waitReply(ma.messageId, 'reply', 60_000), wb.waitReply(mb.messageId, 'reply', 60_000)]);
    const ra = await mock.waitFor(toolResultFor('tag:para'));
    const rb = await mock.waitFor(toolResultFor('tag:parb'));
    expect(ra.lastUserText).toContain(api);
    expect(ra.lastUserText).not.toContain(web);
    expect(rb.lastUserText).toContain(web);
    // The web project's own model; api runs on the CLI's default.
    expect(rb.body.model).toBe('claude-sonnet-4-5');
    expect(ra.body.model).not.toBe('claude-sonnet-4-5');
    expect(ra.lastUserText).toContain('both-running');
    expect(rb.lastUserText).toContain('both-running');
    // The mock saw both turns start before either turn's tool result came back.
    const starts = mock
      .mainRequests()
      .filter((r) => !r.afterTool && (r.historyText.includes('tag:para') || r.historyText.includes('tag:parb')));
    expect(starts).toHaveLength(2);
    expect(Math.max(...starts.map((r) => r.seq))).toBeLessThan(Math.min(ra.seq, rb.seq));
  });

  it('/project lists and switches; moving back resumes the session the conversation had there', async () => {
    const api = real(tempDir('api'));
    const web = real(tempDir('web'));
    const gw = await gateway({ projects: { api: { path: api }, web: { path: web } } });
    const c = await create(gw);
    const w = gw.watch(c);
    await w.ready;
    const listing = await command(gw, w, c, '/project');
    expect(listing).toContain(`→ api — ${api} (default)`);
    expect(listing).toContain(`   web — ${web}`);
    expect(await command(gw, w, c, '/project nope')).toBe('There is no project "nope". Projects: api, web.');
    const p1 = await gw.post(c, 'remember tag:p1');
    await w.waitReply(p1.messageId, 'reply');
    const apiSession = gw.gw.services.store.conversation(`web:${c}`)!.sessionId;
    expect(apiSession).toBeTruthy();
    // Rudder's own session is listed with the person's words, not the wrapper around them.
    expect(await command(gw, w, c, '/sessions')).toMatch(
      new RegExp(
        `^1\\. just now · “remember tag:p1” — last \\(agent\\): “ok tag:p1” · ${apiSession} \\[this ` +
          `conversation; open here\\]$`,
        'm',
      ),
    );
    const live = gw.gw.services.registry.get(`web:${c}`)!;
    expect(await command(gw, w, c, '/project web')).toBe(
      `This conversation now works in web (${web}). The next turn starts a new session there.`,
    );
    expect(live.state()).toBe('stopped');
    const p2 = await gw.post(c, '[[bash:pwd]] tag:p2');
    await w.waitReply(p2.messageId, 'reply');
    expect((await mock.waitFor(toolResultFor('tag:p2'))).lastUserText).toContain(web);
    expect(mock.mainRequests().at(-1)!.historyText).not.toContain('tag:p1');
    expect((await command(gw, w, c, '/project')).split('\n')).toContain(`→ web — ${web}`);
    expect(await command(gw, w, c, '/status')).toContain(`Project: web (${web})`);
    expect(await command(gw, w, c, '/project api')).toBe(
      `This conversation now works in api (${api}). The next turn resumes the session it had there (${apiSession}).`,
    );
    const p3 = await gw.post(c, 'back again tag:p3');
    await w.waitReply(p3.messageId, 'reply');
    const last = mock.mainRequests().at(-1)!;
    expect(last.historyText).toContain('tag:p1');
    expect(last.historyText).not.toContain('tag:p2');
    expect(gw.gw.services.store.conversation(`web:${c}`)).toMatchObject({ project: 'api', sessionId: apiSession });
  });

  it(
    'with worktrees, two conversations on one repository get two worktrees and branches; an edit in one is ' +
      'not in the other',
    async () => {
      const repo = gitRepo();
      const gw = await gateway({ projects: { repo: { path: repo, worktrees: true } } });
      const [a, b] = [await create(gw, 'repo'), await create(gw, 'repo')];
      const [wa, wb] = [gw.watch(a), gw.watch(b)];
      await Promise.all([wa.ready, wb.ready]);
      const edit = (who: string) =>
        `[[bash:pwd; git branch --show-current; echo from-${who} > ${who}.txt]] tag:wt${who}`;
      const [ma, mb] = await Promise.all([gw.post(a, edit('a')), gw.post(b, edit('b'))]);
      await Promise.all([wa.waitReply(ma.messageId, 'reply', 60_000), wb.waitReply(mb.messageId, 'reply', 60_000)]);
      const rows = [a, b].map((c) => gw.gw.services.store.projects.get(`web:${c}`, 'repo')!);
      const ta = rows[0]!.worktree!;
      const tb = rows[1]!.worktree!;
      expect(ta).not.toBe(tb);
      expect(rows.map((r) => r.branch)).toEqual([`rudder/web/${a}`, `rudder/web/${b}`]);
      expect((await mock.waitFor(toolResultFor('tag:wta'))).lastUserText).toContain(`${ta}\nrudder/web/${a}`);
      expect((await mock.waitFor(toolResultFor('tag:wtb'))).lastUserText).toContain(`${tb}\nrudder/web/${b}`);
      expect(fs.readFileSync(path.join(ta, 'a.txt'), 'utf8')).toBe('from-a\n');
      expect(fs.existsSync(path.join(tb, 'a.txt'))).toBe(false);
      expect(fs.existsSync(path.join(ta, 'b.txt'))).toBe(false);
      expect(fs.existsSync(path.join(repo, 'a.txt'))).toBe(false);
      expect(
        runGit(repo, 'branch', '--list', 'rudder/*')
          .split('\n')
          .map((l) => l.replace(/^[+* ]+/, ''))
          .sort(),
      ).toEqual([`rudder/web/${a}`, `rudder/web/${b}`].sort());

      const status = await command(gw, wa, a, '/status');
      expect(status).toContain('Project: repo');
      expect(status).toContain(`Worktree: ${ta}`);
      expect(status).toContain(`Branch: rudder/web/${a}, 0 ahead and 0 behind main`);
      expect(status).toContain('Changed files (1): ?? a.txt');
      await command(gw, wa, a, '/clear');
      expect(fs.existsSync(path.join(ta, 'a.txt'))).toBe(true);
      expect(await command(gw, wa, a, '/worktree remove')).toBe(
        `The worktree ${ta} has uncommitted changes: ?? a.txt. Commit them, or send /worktree remove --force ` +
          `to throw them away.`,
      );
      expect(fs.existsSync(ta)).toBe(true);
      expect(await command(gw, wa, a, '/worktree remove --force')).toMatch(
        new RegExp(`^Removed the worktree ${ta}\\. The branch rudder/web/${a} is kept`),
      );
      expect(fs.existsSync(ta)).toBe(false);
      expect(runGit(repo, 'branch', '--list', `rudder/web/${a}`)).toContain(`rudder/web/${a}`);
      // The next turn checks the kept branch out again.
      const again = await gw.post(a, '[[bash:pwd]] tag:wtagain');
      await wa.waitReply(again.messageId, 'reply');
      expect((await mock.waitFor(toolResultFor('tag:wtagain'))).lastUserText).toContain(ta);
      expect(fs.existsSync(path.join(ta, 'README.md'))).toBe(true);

      // An ignored file (a .env) is no change to git, but removing the worktree would delete it: refused, listed.
      fs.appendFileSync(path.join(repo, '.git', 'info', 'exclude'), '.env\n');
      fs.writeFileSync(path.join(tb, '.env'), 'API_KEY=the-only-copy\n');
      fs.rmSync(path.join(tb, 'b.txt'));
      expect(await command(gw, wb, b, '/worktree remove')).toBe(
        `The worktree ${tb} has ignored files that git does not keep: .env. Commit or copy out what you need, or ` +
          'send /worktree remove --force to throw them away.',
      );
      expect(fs.readFileSync(path.join(tb, '.env'), 'utf8')).toBe('API_KEY=the-only-copy\n');
    },
  );

  it('a worktrees project that stopped being a git repository fails the turn with a clear notice', async () => {
    const repo = gitRepo();
    const gw = await gateway({ projects: { repo: { path: repo, worktrees: true } } });
    fs.rmSync(path.join(repo, '.git'), { recursive: true, force: true });
    const c = await create(gw, 'repo');
    const w = gw.watch(c);
    await w.ready;
    const m = await gw.post(c, 'hello tag:nogit');
    const notice = await w.waitReply(m.messageId, 'notice');
    expect(notice.data.text).toMatch(
      /is not a git repository.*Run git init there and commit once, or set projects\.repo\.worktrees to false/,
    );
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('failed');
    expect(mock.requests.some((r) => r.historyText.includes('tag:nogit'))).toBe(false);
  });

  it('/sessions lists a session a plain `claude -p` made in the project, and /resume continues it', async () => {
    const api = real(tempDir('api'));
    const gw = await gateway({ projects: { api: { path: api } } });
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(CLAUDE_BIN, ['-p', '--output-format', 'json', 'started at my desk tag:desk'], {
        cwd: api,
        env: rigEnv(mock.url, gw.claudeHome),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let s = '';
      child.stdout.on('data', (d) => (s += d));
      child.on('exit', (code) => (code === 0 ? resolve(s) : reject(new Error(`claude -p exited ${code}`))));
    });
    const deskSession = JSON.parse(out).session_id as string;
    const c = await create(gw, 'api');
    const w = gw.watch(c);
    await w.ready;
    const list = await command(gw, w, c, '/sessions');
    expect(list).toMatch(
      new RegExp(
        `^1\\. just now · “started at my desk tag:desk” — last \\(agent\\): “ok tag:desk” · ${deskSession}$`,
        'm',
      ),
    );
    expect(await command(gw, w, c, '/resume 2')).toBe('There is no session 2 in the list. Send /sessions to see them.');
    expect(await command(gw, w, c, `/resume ${'0'.repeat(8)}-0000-0000-0000-000000000000`)).toMatch(
      /^There is no session 0{8}-0000-0000-0000-0{12} in project api\./,
    );
    expect(await command(gw, w, c, '/resume ../../etc/passwd')).toBe(
      '"../../etc/passwd" is neither a number from /sessions nor a session id.',
    );
    expect(await command(gw, w, c, '/resume')).toMatch(/^Usage: \/resume/);
    expect(await command(gw, w, c, '/resume 1')).toBe(
      `This conversation continues session ${deskSession} in api from the next message.`,
    );
    const m = await gw.post(c, 'and now from my phone tag:phone');
    const reply = await w.waitReply(m.messageId, 'reply');
    expect(reply.data.text).toContain('ok tag:phone');
    const req = mock.mainRequests().at(-1)!;
    expect(req.historyText).toContain('started at my desk tag:desk');
    expect(gw.gw.services.store.conversation(`web:${c}`)!.sessionId).toBe(deskSession);
    expect(await command(gw, w, c, '/sessions')).toMatch(
      new RegExp(`^1\\. .*${deskSession} \\[this conversation; open here\\]$`, 'm'),
    );
    // Another conversation may not take it over while this one's agent has it open.
    const pid = gw.gw.services.registry.get(`web:${c}`)!.pid()!;
    const other = await create(gw, 'api');
    const wo = gw.watch(other);
    await wo.ready;
    expect(await command(gw, wo, other, '/sessions')).toContain(
      `${deskSession} [open in another Rudder conversation (web:${c}), pid ${pid}]`,
    );
    expect(await command(gw, wo, other, '/resume 1')).toMatch(
      new RegExp(
        `^Session ${deskSession} is open in another Rudder conversation \\(web:${c}\\), pid ${pid}\\. Two ` +
          `programs writing one session corrupt it`,
      ),
    );
    expect(gw.gw.services.store.conversation(`web:${other}`)!.sessionId).toBeNull();
  });

  it('/sessions in a group shows no session’s prompts or messages; in a private chat it does', async () => {
    const api = real(tempDir('api'));
    const tg = await startFakeTelegram();
    cleanups.push(() => tg.close());
    const owner = 4343;
    const group = -100700;
    const gw = await gateway({
      projects: { api: { path: api } },
      channels: {
        telegram: {
          token: tg.token,
          apiRoot: tg.apiRoot,
          owners: [owner],
          pollTimeoutSeconds: 1,
          groups: { requireMention: false },
        },
      },
    });
    // A session typed at the desk, and one of another (web) conversation: each with words no group should read.
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(CLAUDE_BIN, ['-p', '--output-format', 'json', 'my salary is 9000 tag:desk-secret'], {
        cwd: api,
        env: rigEnv(mock.url, gw.claudeHome),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let s = '';
      child.stdout.on('data', (d) => (s += d));
      child.on('exit', (code) => (code === 0 ? resolve(s) : reject(new Error(`claude -p exited ${code}`))));
    });
    const deskSession = JSON.parse(out).session_id as string;
    const web = await create(gw, 'api');
    const w = gw.watch(web);
    await w.ready;
    await w.waitReply((await gw.post(web, 'the web secret tag:web-secret')).messageId, 'reply');
    const webSession = gw.gw.services.store.conversation(`web:${web}`)!.sessionId!;

    let id = 1;
    const say = (chat: Record<string, unknown>, text: string) =>
      tg.pushUpdate({
        message: {
          message_id: id++,
          date: Math.floor(Date.now() / 1000),
          chat,
          from: { id: owner, is_bot: false, first_name: 'O' },
          text,
        },
      });
    const answerIn = async (chat: number) => {
      await waitUntil(
        () =>
          tg.callsOf('sendMessage').some((c) => Number(c.body.chat_id) === chat && /sessions in api/.test(c.body.text)),
        30_000,
      );
      return String(
        tg.callsOf('sendMessage').find((c) => Number(c.body.chat_id) === chat && /sessions in api/.test(c.body.text))!
          .body.text,
      );
    };
    say({ id: group, type: 'supergroup', title: 'Team' }, '/sessions');
    const inGroup = await answerIn(group);
    for (const secret of ['salary', 'tag:desk-secret', 'web secret', 'tag:web-secret', 'ok tag'])
      expect(inGroup).not.toContain(secret);
    expect(inGroup).toContain(deskSession);
    expect(inGroup).toContain(webSession);
    expect(inGroup).toMatch(/^\d\. just now · [0-9a-f-]{36}/m);
    expect(inGroup).toContain('Prompts are not shown in a group');

    say({ id: owner, type: 'private', first_name: 'O' }, '/sessions');
    const inPrivate = await answerIn(owner);
    expect(inPrivate).toContain('“my salary is 9000 tag:desk-secret”');
    expect(inPrivate).toContain('“the web secret tag:web-secret”');
    expect(inPrivate).not.toContain('Prompts are not shown');
  });

  it('/resume refuses a session an interactive claude has open, unless --force', async () => {
    const api = real(tempDir('api'));
    const claudeHome = tempDir('chome');
    seedHome(claudeHome, api, READY_SEED);
    const gw = await gateway({ projects: { api: { path: api } } }, claudeHome);
    const tmux = new Tmux({ name: privateSocket('proj') });
    cleanups.push(() => tmux.killServer());
    await tmux.newSession({
      name: 'desk',
      cwd: api,
      width: 200,
      height: 50,
      env: claudeEnv(claudeHome, mock.url),
      argv: [CLAUDE_BIN, 'typed in the terminal tag:tui'],
    });
    const pid = (await tmux.paneInfo('desk')).pid;
    cleanups.unshift(async () => {
      await tmux.killSession('desk');
      await waitForExit(pid, 5000);
    });
    const configDir = path.join(claudeHome, '.claude');
    await waitUntil(
      () => mock.requests.some((r) => r.historyText.includes('tag:tui')) && openSessions(configDir).size > 0,
      30_000,
    );
    const [tuiSession, by] = [...openSessions(configDir)][0]!;
    expect(by).toMatchObject({ pid, entrypoint: 'cli' });
    const c = await create(gw, 'api');
    const w = gw.watch(c);
    await w.ready;
    await waitUntil(
      async () => (await command(gw, w, c, '/sessions')).includes(`“typed in the terminal tag:tui”`),
      30_000,
    );
    expect(await command(gw, w, c, '/sessions')).toContain(`${tuiSession} [open in an interactive claude, pid ${pid}]`);
    const refused = await command(gw, w, c, '/resume 1');
    expect(refused).toBe(
      `Session ${tuiSession} is open in an interactive claude, pid ${pid}. Two programs writing one session ` +
        `corrupt it: close it there first, or send /resume 1 --force if that process is not writing any more.`,
    );
    expect(gw.gw.services.store.conversation(`web:${c}`)!.sessionId).toBeNull();
    expect(await command(gw, w, c, '/resume 1 --force')).toMatch(
      new RegExp(
        `^This conversation continues session ${tuiSession} in api from the next message\\. \\(It is still ` +
          `open in an interactive claude, pid ${pid}\\.\\)$`,
      ),
    );
    expect(gw.gw.services.store.conversation(`web:${c}`)!.sessionId).toBe(tuiSession);
  });

  it('Telegram forum topics bound to two projects work in their own directories', async () => {
    const api = real(tempDir('api'));
    const web = real(tempDir('web'));
    const tg = await startFakeTelegram();
    cleanups.push(() => tg.close());
    const owner = 4242;
    await gateway({
      projects: { api: { path: api }, web: { path: web } },
      channels: {
        telegram: {
          token: tg.token,
          apiRoot: tg.apiRoot,
          owners: [owner],
          pollTimeoutSeconds: 1,
          groups: { requireMention: false },
          projects: { '-100900': 'api', '-100900:8': 'web' },
        },
      },
    });
    let id = 1;
    const inTopic = (topic: number, text: string) => ({
      message: {
        message_id: id++,
        date: Math.floor(Date.now() / 1000),
        message_thread_id: topic,
        is_topic_message: true,
        chat: { id: -100900, type: 'supergroup', title: 'Team', is_forum: true },
        from: { id: owner, is_bot: false, first_name: 'O' },
        text,
      },
    });
    tg.pushUpdate(inTopic(7, '[[bash:pwd]] tag:topic7'));
    tg.pushUpdate(inTopic(8, '[[bash:pwd]] tag:topic8'));
    expect((await mock.waitFor(toolResultFor('tag:topic7'), 60_000)).lastUserText).toContain(api);
    expect((await mock.waitFor(toolResultFor('tag:topic8'), 60_000)).lastUserText).toContain(web);
  });
});
