/**
 * "The person's" own tmux server for the attach scenarios: a private socket the test owns, a Claude
 * Code TUI (the pinned CLI against the mock) started in one of its panes as a person would start it
 * (no Rudder mark, its own HOME), and the keys a person types there.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Pane } from '../../src/agents/tmux/pane/pane.js';
import { Tmux } from '../../src/agents/tmux/pane/tmux.js';
import type { PaneVerdict } from '../../src/agents/tmux/screen/pane-state.js';
import { CLAUDE_BIN, mockAgentEnv, tempDir, waitUntil } from './claude-rig.js';
import { privateSocket } from './tmux-rig.js';

export interface PersonPane {
  socket: string;
  home: string;
  cwd: string;
  /** tmux's id of the pane (`%0`). */
  paneId: string;
  tmux: Tmux;
  /** The pane's program: the claude itself (started without a shell). */
  pid(): number;
  verdict(): Promise<PaneVerdict>;
  capture(): Promise<string>;
  /** Types text into the box, as a person does (no Enter). */
  type(text: string): void;
  keys(...keys: string[]): void;
  /** Types a prompt and presses Enter, as a person does: once the text shows in the box (again if Enter was eaten). */
  submit(text: string): Promise<void>;
  waitFor(v: PaneVerdict, timeoutMs?: number): Promise<void>;
  /** The CLI's session file for the pane's claude (`sessions/<pid>.json`). */
  sessionId(): string | undefined;
  kill(): Promise<void>;
}

/** A HOME onboarded, its API key approved and `cwd` trusted, as a person's own machine is after a first run there. */
function personHome(cwd: string, apiKey: string): string {
  const home = tempDir('person');
  fs.writeFileSync(
    path.join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
      projects: { [cwd]: { hasTrustDialogAccepted: true } },
    }),
  );
  return home;
}

/** Starts `claude` (extra args) in pane `work:0.0` of a new server of the test's (`socket`: when a config names it). */
export async function startPersonPane(
  mockUrl: string,
  cwd: string,
  args: string[] = [],
  socket = privateSocket('person'),
): Promise<PersonPane> {
  const env: Record<string, string> = { ...mockAgentEnv(mockUrl, ''), TERM: 'tmux-256color' };
  const home = personHome(cwd, env.ANTHROPIC_API_KEY ?? '');
  env.HOME = home;
  const tmuxArgs = ['-L', socket, '-f', '/dev/null'];
  const run = (...a: string[]) => execFileSync('tmux', [...tmuxArgs, ...a], { encoding: 'utf8' });
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  run('new-session', '-d', '-s', 'work', '-x', '200', '-y', '50', '-c', cwd, ...envArgs, CLAUDE_BIN, ...args);
  const paneId = run('list-panes', '-t', '=work:', '-F', '#{pane_id}').trim();
  const tmux = new Tmux({ name: socket });
  const pane = new Pane(tmux, paneId);
  const verdict = async () => (await pane.look()).verdict;
  const pp: PersonPane = {
    socket,
    home,
    cwd,
    paneId,
    tmux,
    pid: () => Number(run('display-message', '-p', '-t', paneId, '#{pane_pid}').trim()),
    verdict,
    capture: () => tmux.capturePane(paneId),
    type: (text) => void run('send-keys', '-t', paneId, '-l', text),
    keys: (...keys) => void run('send-keys', '-t', paneId, ...keys),
    submit: async (text) => {
      pp.type(text);
      await waitUntil(async () => (await pp.capture()).includes(text), 10_000, 50);
      await new Promise((r) => setTimeout(r, 300));
      for (let tries = 0; tries < 5; tries++) {
        pp.keys('Enter');
        await new Promise((r) => setTimeout(r, 1500));
        if (!(await pp.capture()).split('\n').some((l) => l.startsWith('❯\u00a0') && l.includes(text))) return;
      }
    },
    waitFor: (v, timeoutMs = 60_000) => waitUntil(async () => (await verdict()) === v, timeoutMs, 100),
    sessionId: () => {
      try {
        const f = path.join(home, '.claude', 'sessions', `${pp.pid()}.json`);
        return (JSON.parse(fs.readFileSync(f, 'utf8')) as { sessionId?: string }).sessionId;
      } catch {
        return undefined;
      }
    },
    kill: () => tmux.killServer(),
  };
  return pp;
}
