/**
 * The claude-tmux backend on the REAL TUI in tmux (private sockets) against the mock Messages API.
 * Each HOME is onboarded and nothing else, so every session also answers the trust, added-directory
 * and API-key dialogs by their text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Turn, TurnEvent } from '../../../../src/agents/session.js';
import { readMenu } from '../../../../src/agents/tmux/menus/menus.js';
import { hasTmux, Tmux } from '../../../../src/agents/tmux/pane/tmux.js';
import { classifyPane } from '../../../../src/agents/tmux/screen/pane-state.js';
import { ClaudeTmuxSession } from '../../../../src/agents/tmux/tmux-session.js';
import { claudeConfigDir, transcriptPath } from '../../../../src/agents/tmux/transcript/transcript.js';
import { parseTranscriptLine, unwrapPasted } from '../../../../src/agents/tmux/transcript/transcript-entries.js';
import { cmdlineOf } from '../../../../src/ops/proc.js';
import { stripControlSequences } from '../../../../src/security/control-sequences.js';
import { pidAlive, tempDir, waitUntil } from '../../../support/claude-rig.js';
import { type MockApi, startMockApi } from '../../../support/mock-anthropic.js';
import {
  killAtToolStart,
  killServers,
  privateSocket,
  removeRigDirs,
  type TmuxRigOptions,
  tmuxLaunch,
} from '../../../support/tmux-rig.js';

const tmuxAvailable = await hasTmux();
const ESC = '\x1b';

// Each test starts the real TUI, sometimes twice: on a loaded machine that takes several times as long as here idle.
describe.skipIf(!tmuxAvailable)('claude-tmux session (real TUI)', { timeout: 240_000 }, () => {
  let mock: MockApi;
  const sockets: string[] = [];
  const sessions: ClaudeTmuxSession[] = [];

  beforeAll(async () => {
    mock = await startMockApi();
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.stop('test over')));
    mock.setScript(undefined);
  });
  afterAll(async () => {
    await killServers(sockets);
    await mock.close();
    removeRigDirs();
  });

  function start(opts: Partial<TmuxRigOptions> = {}) {
    const socket = privateSocket('sess');
    sockets.push(socket);
    const persisted: string[] = [];
    const launch = tmuxLaunch({
      mockUrl: mock.url,
      socket,
      ...opts,
      launch: { onSessionId: (id) => persisted.push(id), ...opts.launch },
    });
    const s = new ClaudeTmuxSession(launch);
    sessions.push(s);
    const tmux = new Tmux({ name: socket });
    return { s, launch, persisted, tmux, capture: () => tmux.capturePane(s.paneName) };
  }

  function collect(turn: Turn): TurnEvent[] {
    const events: TurnEvent[] = [];
    turn.onEvent((e) => events.push(e));
    return events;
  }

  function transcript(launch: ReturnType<typeof tmuxLaunch>, sid: string) {
    const file = transcriptPath(claudeConfigDir(launch.env), launch.cwd, sid);
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map(parseTranscriptLine)
      .filter((e) => e !== undefined);
  }

  it(
    'round-trips a message: typed when ready, confirmed in the transcript, the reply read from the ' + 'transcript',
    async () => {
      const { s, launch, persisted } = start();
      // Markdown the pane would render without its asterisks: the reply can only come from the transcript.
      mock.setScript((r) =>
        !r.side && r.lastText.includes('tag:rt') ? { kind: 'text', text: '**bold** and `code` for tag:rt' } : undefined,
      );
      const turn = s.startTurn({ inputs: [{ id: 'm1', text: 'hello tag:rt', source: 'web:owner' }] });
      const events = collect(turn);
      const r = await turn.result;
      expect(r.text).toBe('**bold** and `code` for tag:rt');
      expect(r.inputIds).toEqual(['m1']);
      expect(events.some((e) => e.type === 'text-delta')).toBe(true);
      const sid = s.sessionId()!;
      expect(persisted).toContain(sid);
      const prompts = transcript(launch, sid).filter((e) => e.kind === 'prompt');
      expect(prompts).toHaveLength(1);
      expect(prompts[0]!.kind === 'prompt' && prompts[0]!.text).toMatch(
        /^<<<EXTERNAL_USER_MESSAGE id=\w+ from="web:owner">>>\nhello tag:rt\n<<<END_EXTERNAL_USER_MESSAGE id=\w+>>>$/,
      );
      // The first-run dialogs were answered by their text: the folder is trusted and the configured key approved.
      const config = JSON.parse(fs.readFileSync(path.join(launch.home, '.claude.json'), 'utf8'));
      expect(config.projects[launch.cwd].hasTrustDialogAccepted).toBe(true);
      expect(config.customApiKeyResponses.approved).toContain('sk-ant-test-key'.slice(-20));
    },
  );

  it(
    'acknowledges a message sent while a Bash sleep 3 runs as steered, and addresses it in the same ' + 'turn',
    async () => {
      const { s } = start();
      const turn = s.startTurn({ inputs: [{ id: 'a', text: 'work [[bash:sleep 3]] tag:st1' }] });
      const events = collect(turn);
      await waitUntil(() => events.some((e) => e.type === 'tool-use'), 30_000);
      const p = s.steer({ id: 'b', text: 'also this tag:st2' });
      expect(p.written).toBe(true);
      const outcome = await p;
      expect(outcome.outcome).toBe('steered');
      const r = await turn.result;
      expect(r.inputIds).toEqual(['a', 'b']);
      expect(r.steered).toBe(1);
      expect(r.text).toContain('tag:st2');
      expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
      expect(events.some((e) => e.type === 'steer-absorbed' && e.inputId === 'b')).toBe(true);
      expect(mock.mainRequests().at(-1)!.lastUserText).toContain('The user sent a new message while you were working');
    },
  );

  it('pastes a 20 KB multi-line message intact; ESC[201~ in it cannot end the paste early', async () => {
    const { s, launch } = start();
    const lines = Array.from(
      { length: 320 },
      (_, i) =>
        `line ${String(i).padStart(3, '0')} ${'lorem ipsum dolor '.repeat(3)}${
          i === 150 ? `${ESC}[201~ then ` + `Enter?\r` : ''
        }`,
    );
    const text = `BEGIN tag:big\n${lines.join('\n')}\nEND OF MESSAGE`;
    expect(Buffer.byteLength(text)).toBeGreaterThan(20_000);
    const before = mock.mainRequests().length;
    const r = await s.startTurn({ inputs: [{ id: 'big', text }] }).result;
    expect(r.text).toContain('tag:big');
    const prompts = transcript(launch, s.sessionId()!).filter((e) => e.kind === 'prompt');
    expect(prompts).toHaveLength(1);
    const arrived = unwrapPasted(prompts[0]!.kind === 'prompt' ? prompts[0]!.text : '');
    expect(arrived).toContain(stripControlSequences(text));
    expect(arrived).toMatch(
      new RegExp(
        String.raw`^<<<EXTERNAL_USER_MESSAGE id=\w+>>>\nBEGIN tag:big\n[\s\S]*\nEND OF MESSAGE\n` +
          String.raw`<<<END_EXTERNAL_USER_MESSAGE id=\w+>>>$`,
      ),
    );
    // One submission: the marker inside did not end the paste and no line was sent on its own.
    const sent = mock.mainRequests().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.lastUserText).toContain('END OF MESSAGE');
  });

  it('saves a message above the threshold to a file and types a reference to it', async () => {
    const { s, launch } = start({ tmux: { pasteFileThresholdBytes: 2048 } });
    const text = `LONG tag:file\n${'x'.repeat(3000)}\nTAIL`;
    const r = await s.startTurn({ inputs: [{ id: 'f', text }] }).result;
    expect(r.inputIds).toEqual(['f']);
    const [file] = fs.readdirSync(launch.tmux.messageDir);
    const saved = fs.readFileSync(path.join(launch.tmux.messageDir, file!), 'utf8');
    expect(saved).toContain(text);
    const prompt = transcript(launch, s.sessionId()!).find((e) => e.kind === 'prompt');
    expect(prompt?.kind === 'prompt' && prompt.text).toContain(path.join(launch.tmux.messageDir, file!));
    expect(prompt?.kind === 'prompt' && prompt.text).not.toContain('x'.repeat(100));
  });

  it('/stop during a tool leaves the pane ready, and the session continues', async () => {
    const { s, capture } = start();
    await s.startTurn({ inputs: [{ id: 's0', text: 'remember tag:s0' }] }).result;
    const pid = s.pid()!;
    const turn = s.startTurn({ inputs: [{ id: 's1', text: 'long [[bash:echo start; sleep 30]] tag:s1' }] });
    const events = collect(turn);
    await waitUntil(() => events.some((e) => e.type === 'tool-use'), 30_000);
    await s.interrupt({ cancelQueued: true });
    const r = await turn.result;
    expect(r.interrupted).toBe(true);
    expect(classifyPane(await capture())).toBe('ready');
    expect(s.pid()).toBe(pid);
    const next = await s.startTurn({ inputs: [{ id: 's2', text: 'continue tag:s2' }] }).result;
    expect(next.text).toContain('ok tag:s2');
    expect(mock.mainRequests().at(-1)!.historyText).toContain('tag:s0');
  });

  it('detects a killed pane process; the next message respawns it with --resume and nothing is lost', async () => {
    const { s } = start();
    await s.startTurn({ inputs: [{ id: 'k1', text: 'remember tag:k1' }] }).result;
    const sid = s.sessionId()!;
    const pid = s.pid()!;
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => s.state() === 'dead', 15_000);
    expect(s.pid()).toBeUndefined();
    const r = await s.startTurn({ inputs: [{ id: 'k2', text: 'after the kill tag:k2' }] }).result;
    expect(r.text).toContain('ok tag:k2');
    const pid2 = s.pid()!;
    expect(pid2).not.toBe(pid);
    expect(cmdlineOf(pid2)).toContain(`--resume ${sid}`);
    expect(s.sessionId()).toBe(sid);
    expect(mock.mainRequests().at(-1)!.historyText).toContain('tag:k1');

    // Killed mid-turn: the turn fails as a crash and names the input it did not answer.
    const turn = s.startTurn({ inputs: [{ id: 'k3', text: 'work [[bash:echo start; sleep 20]] tag:k3' }] });
    const events = collect(turn);
    await waitUntil(() => events.some((e) => e.type === 'tool-use'), 30_000);
    process.kill(s.pid()!, 'SIGKILL');
    await expect(turn.result).rejects.toMatchObject({ code: 'AGENT_CRASHED', context: { unanswered: ['k3'] } });
    await waitUntil(() => !pidAlive(pid2), 5000);
  });

  it(
    'killed at its first tool, before the TUI wrote the conversation: the message runs in a new session, ' +
      'and later kills resume that one',
    async () => {
      const { s, launch, persisted } = start();
      const flag = path.join(launch.cwd, 'tool-started');
      const turn = s.startTurn({ inputs: [{ id: 'e1', text: `work [[bash:touch ${flag}; sleep 20]] tag:e1` }] });
      const cut = collect(turn);
      const transcriptFile = () => transcriptPath(claudeConfigDir(launch.env), launch.cwd, s.sessionId()!);
      await killAtToolStart(() => s.pid(), flag, transcriptFile);
      const first = s.sessionId()!;
      await expect(turn.result).rejects.toMatchObject({ code: 'AGENT_CRASHED', context: { unanswered: ['e1'] } });
      expect(fs.readFileSync(transcriptFile(), 'utf8')).not.toMatch(/"type":"(user|assistant)"/);
      // The transcript never named the tool; the last screen did, and the turn reports it (a re-run names it).
      const started = cut.filter((e) => e.type === 'tool-use');
      expect(started).toHaveLength(1);
      expect(started[0]).toMatchObject({ name: 'Bash', input: { command: expect.stringContaining(`touch ${flag}`) } });

      // What the lane does next: the same input again. It is typed into a new session, not lost to a failed --resume.
      const again = s.startTurn({ inputs: [{ id: 'e1', text: 'work tag:e1 again' }] });
      const events = collect(again);
      const r = await again.result;
      expect(r.text).toContain('ok tag:e1');
      const second = s.sessionId()!;
      expect(second).not.toBe(first);
      expect(cmdlineOf(s.pid()!)).toContain(`--session-id ${second}`);
      const note = events.find((e) => e.type === 'status' && /could not be resumed/.test(e.message));
      expect(note?.type === 'status' && note.message).toMatch(/holds no conversation/);
      expect(persisted.at(-1)).toBe(second);

      // A later kill resumes the new session, keeping its history.
      process.kill(s.pid()!, 'SIGKILL');
      await waitUntil(() => s.state() === 'dead', 15_000);
      await s.startTurn({ inputs: [{ id: 'e2', text: 'after tag:e2' }] }).result;
      expect(cmdlineOf(s.pid()!)).toContain(`--resume ${second}`);
      expect(s.sessionId()).toBe(second);
      expect(mock.mainRequests().at(-1)!.historyText).toContain('tag:e1');
    },
  );

  it(
    'names the real cause when the TUI exits while starting: ~/.claude.json is blamed only when it is ' + 'missing',
    async () => {
      const { s } = start({ launch: { extraArgs: ['--no-such-option'] } });
      const err = await s.startTurn({ inputs: [{ id: 'x1', text: 'hello' }] }).result.catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'AGENT_SPAWN_FAILED' });
      // The status, when tmux has it: tmux 3.3a loses it when it reads the pty's end before the exit (a loaded
      // machine).
      expect((err as Error).message).toMatch(/exited while starting \(status (1|unknown)\)/);
      expect((err as Error).message).toMatch(/unknown option/);
      expect((err as Error).message).not.toMatch(/claude\.json/);

      const bare = tempDir('thome-bare');
      const { s: s2 } = start({ home: bare });
      const err2 = await s2.startTurn({ inputs: [{ id: 'x2', text: 'hello' }] }).result.catch((e: unknown) => e);
      expect((err2 as Error).message).toMatch(/\.claude\.json (is missing|lacks "hasCompletedOnboarding": true)/);
    },
  );

  it('types past an empty shell-mode box (left first) and never into a shell command someone typed', async () => {
    const { s, tmux, capture } = start({ tmux: { readyTimeoutMs: 2000 } });
    await s.startTurn({ inputs: [{ id: 'b0', text: 'hello tag:sh0' }] }).result;
    // The box in shell mode, empty: the classifier reads it ready (shell-mode) and the message goes in as a message.
    await tmux.sendKeys(s.paneName, '!');
    await waitUntil(async () => /^!\s/m.test(await capture()), 10_000);
    const r1 = await s.startTurn({ inputs: [{ id: 'b1', text: 'as a message tag:sh1' }] }).result;
    expect(r1.text).toBe('ok tag:sh1');
    expect(await capture()).not.toContain('command not found');
    // Someone's command in the shell-mode box: the message waits (the person is told), nothing is typed into it.
    await tmux.sendKeys(s.paneName, '!');
    await waitUntil(async () => /^!\s/m.test(await capture()), 10_000);
    await tmux.sendKeysLiteral(s.paneName, 'echo someone-typed-this');
    await waitUntil(async () => (await capture()).includes('someone-typed-this'), 10_000);
    const before = mock.mainRequests().length;
    const turn = s.startTurn({ inputs: [{ id: 'b2', text: 'wait for the box tag:sh2' }] });
    const events = collect(turn);
    await waitUntil(() => events.some((e) => e.type === 'status' && /in shell mode/.test(e.message)), 30_000);
    const meanwhile = await capture();
    expect(meanwhile).toMatch(/^!\secho someone-typed-this\s*$/m);
    expect(meanwhile).not.toContain('tag:sh2');
    expect(mock.mainRequests().length).toBe(before);
    // Once the command is gone (and the box with it), the message is typed as a message.
    await tmux.sendKeys(s.paneName, 'C-u');
    const r2 = await turn.result;
    expect(r2.text).toBe('ok tag:sh2');
    expect(await capture()).not.toContain('someone-typed-this: command not found');
  });

  it('does not type a steer into a permission prompt: nothing is written and the reason is given', async () => {
    const { s, capture, launch } = start({ launch: { permissionMode: 'relay' } });
    const marker = path.join(launch.cwd, 'made-by-tool');
    const turn = s.startTurn({ inputs: [{ id: 'p1', text: `[[bash:touch ${marker}]] tag:p1` }] });
    const events = collect(turn);
    await waitUntil(() => events.some((e) => e.type === 'permission'), 30_000);
    const menu = readMenu(await capture());
    expect(menu?.question).toBe('Do you want to proceed?');
    const p = s.steer({ id: 'p2', text: 'not into the menu tag:p2' });
    expect(p.written).toBe(false);
    expect(p.reason).toMatch(/question waiting for your answer/);
    await new Promise((r) => setTimeout(r, 1500));
    const after = await capture();
    expect(readMenu(after)).toEqual(menu);
    expect(after).not.toContain('tag:p2');
    expect(mock.requests.some((q) => q.historyText.includes('tag:p2'))).toBe(false);
    const req = events.find((e) => e.type === 'permission')!;
    // relay: the person wants to be asked, so the options that stop the asking are not offered.
    expect(req.type === 'permission' && req.request.options.map((o) => o.id)).toEqual(['allow', 'deny']);
    expect(s.answerPermission(req.type === 'permission' ? req.request.requestId : '', { optionId: 'allow' })).toBe(
      true,
    );
    await turn.result;
    expect(fs.existsSync(marker)).toBe(true);
  });

  it(
    'a steer written as a prompt comes up waits behind it, the notice names it, and when the turn ends ' +
      'first it runs as its own turn (ran-as-turn)',
    async () => {
      const { s, capture } = start({ launch: { permissionMode: 'relay' }, tmux: { readyTimeoutMs: 1500 } });
      const never = path.join(tempDir('never'), 'not-made');
      // The steer must be written (the pane last seen busy) while the prompt is already drawn: the model's
      // tool call is held until the test watches the pane, and the steer goes the moment the prompt shows.
      // The session's own look lags by up to one poll, so now and then it has seen the prompt: try again.
      for (let attempt = 1; ; attempt++) {
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        let asked = false;
        // Once per attempt: after a denied tool the next prompt shares a user message with its tool result.
        mock.setScript(async (r) =>
          !r.side && r.lastText.includes(`tag:pw${attempt}`) && !asked
            ? ((asked = true), await held, { kind: 'tool', name: 'Bash', input: { command: `touch ${never}` } })
            : undefined,
        );
        const turn = s.startTurn({ inputs: [{ id: `pw${attempt}`, text: `work tag:pw${attempt}` }] });
        const events = collect(turn);
        await mock.waitFor((r) => !r.side && r.lastText.includes(`tag:pw${attempt}`), 30_000);
        release();
        await waitUntil(async () => readMenu(await capture())?.question === 'Do you want to proceed?', 30_000, 5);
        const p = s.steer({ id: `ps${attempt}`, text: `meanwhile tag:ps${attempt}` });
        await waitUntil(() => events.some((e) => e.type === 'permission'), 30_000);
        const req = events.find((e) => e.type === 'permission')!;
        if (!p.written) {
          expect(attempt, 'the steer was never written before the session saw the prompt').toBeLessThan(10);
          s.answerPermission(req.type === 'permission' ? req.request.requestId : '', { optionId: 'deny' });
          await turn.result;
          continue;
        }
        // It waits behind the prompt; the person is told, about this message.
        await waitUntil(() => events.some((e) => e.type === 'status' && e.notify === true), 20_000);
        const told = events.find((e) => e.type === 'status' && e.notify === true)!;
        expect(told.type === 'status' && told.message).toMatch(/not typed yet: the agent terminal shows a menu/);
        expect(told.type === 'status' && told.inputIds).toEqual([`ps${attempt}`]);
        expect(await capture()).not.toContain(`tag:ps${attempt}`);
        // The person says No: the turn ends, and the waiting message runs as the next turn of its own.
        expect(s.answerPermission(req.type === 'permission' ? req.request.requestId : '', { optionId: 'deny' })).toBe(
          true,
        );
        const first = await turn.result;
        expect(first.inputIds).toEqual([`pw${attempt}`]);
        const outcome = await p;
        expect(outcome.outcome).toBe('ran-as-turn');
        if (outcome.outcome !== 'ran-as-turn') return;
        expect(outcome.turn).not.toBe(turn);
        expect(outcome.turn.inputIds()).toEqual([`ps${attempt}`]);
        const r = await outcome.turn.result;
        expect(r.text).toContain(`ok tag:ps${attempt}`);
        expect(mock.mainRequests().filter((q) => q.lastText.includes(`tag:ps${attempt}`))).toHaveLength(1);
        expect(fs.existsSync(never)).toBe(false);
        return;
      }
    },
  );

  it(
    'outside relay and manual mode a relayed prompt keeps the options that change later prompts, each ' +
      'saying what it does',
    async () => {
      const { s } = start({ launch: { permissionMode: 'acceptEdits' } });
      // Outside the working directory: acceptEdits asks for it.
      const marker = path.join(tempDir('outside'), 'made-in-accept-edits');
      const turn = s.startTurn({ inputs: [{ id: 'ae1', text: `[[bash:touch ${marker}]] tag:ae1` }] });
      const events = collect(turn);
      await waitUntil(() => events.some((e) => e.type === 'permission'), 30_000);
      const req = events.find((e) => e.type === 'permission')!;
      if (req.type !== 'permission') throw new Error('no permission request');
      expect(req.request.description).toBe('Do you want to proceed?');
      expect(req.request.input).toEqual({ command: `touch ${marker}`, description: 'Run the requested command' });
      const plain = req.request.options.filter((o) => !o.effect).map((o) => o.label);
      expect(plain).toEqual(['Yes', 'No']);
      const marked = req.request.options.filter((o) => o.effect);
      expect(marked.length).toBeGreaterThanOrEqual(1);
      for (const o of marked) expect(o.effect).toMatch(/no longer asked|without asking you/);
      // A plain Yes still answers only this request.
      expect(s.answerPermission(req.request.requestId, { optionId: 'allow' })).toBe(true);
      await turn.result;
      expect(fs.existsSync(marker)).toBe(true);
    },
  );

  it(
    'a new message never goes into a menu left open in the terminal: it waits, the person is told and ' + 'asked',
    async () => {
      const { s, tmux, capture } = start({ tmux: { readyTimeoutMs: 2000 } });
      await s.startTurn({ inputs: [{ id: 'w0', text: 'warm up tag:w0' }] }).result;
      // Someone at the terminal opens the /model picker and walks away.
      await tmux.sendKeysLiteral(s.paneName, '/model');
      await new Promise((r) => setTimeout(r, 400));
      await tmux.sendKeys(s.paneName, 'Enter');
      await waitUntil(async () => readMenu(await capture())?.options.length === 5, 15_000);
      const turn = s.startTurn({ inputs: [{ id: 'w1', text: 'waiting tag:w1' }] });
      const events = collect(turn);
      await waitUntil(() => events.some((e) => e.type === 'status' && e.notify === true), 20_000);
      await waitUntil(() => events.some((e) => e.type === 'permission'), 20_000);
      const told = events.find((e) => e.type === 'status' && e.notify)!;
      expect(told.type === 'status' && told.message).toMatch(/not typed yet: the agent terminal shows a menu/);
      const asked = events.find((e) => e.type === 'permission')!;
      expect(asked.type === 'permission' && asked.request.toolName).toBe('menu');
      expect(s.phase()).toBe('asking-person');
      const screen = await capture();
      expect(readMenu(screen)?.options).toHaveLength(5);
      expect(screen).not.toContain('tag:w1');
      expect(mock.requests.some((q) => q.historyText.includes('tag:w1'))).toBe(false);
      // The person picks the first option; the picker closes and the message is typed.
      expect(
        s.answerPermission(asked.type === 'permission' ? asked.request.requestId : '', { optionId: 'option-1' }),
      ).toBe(true);
      const r = await turn.result;
      expect(r.text).toContain('ok tag:w1');
    },
  );

  it('clears the context with the TUI’s /clear and switches the model with its /model', async () => {
    const { s, persisted } = start();
    await s.startTurn({ inputs: [{ id: 'c1', text: 'remember tag:c1' }] }).result;
    const before = s.sessionId()!;
    await s.clearContext();
    expect(s.sessionId()).not.toBe(before);
    expect(persisted.at(-1)).toBe(s.sessionId());
    await s.setModel('sonnet');
    await s.startTurn({ inputs: [{ id: 'c2', text: 'fresh tag:c2' }] }).result;
    const last = mock.mainRequests().at(-1)!;
    expect(last.historyText).not.toContain('tag:c1');
    expect(String(last.body.model)).toMatch(/sonnet/);
  });
});
