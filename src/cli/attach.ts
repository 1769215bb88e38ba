/**
 * `rudder attach [conversation]`: opens a conversation's agent session in this terminal (tmux). Its pane when it
 * has one (claude-tmux, or a person's pane it is attached to); a headless session is moved to a pane first, at
 * the end of the running turn (the CLI says so and offers to stop it); a Codex thread gets the line that resumes
 * it in Codex's TUI. After a detach (C-b d) the phone goes on driving the same pane.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import type { Command } from 'commander';
import type {
  ConversationList,
  TerminalAnswer,
  TerminalBack,
  TerminalCodex,
  TerminalPane,
  TerminalPlan,
} from '../http/wire.js';
import { ApiError, call, type Endpoint, endpoint } from './client.js';
import { named, pick } from './pick-conversation.js';

export interface AttachOptions {
  /** Print the tmux command instead of running it. */
  print?: boolean;
  /** Hand a Codex thread back: the messages held meanwhile run. */
  done?: boolean;
}

export function register(program: Command): void {
  program
    .command('attach')
    .description("open a conversation's agent session in this terminal; the phone drives it again after you detach")
    .argument('[conversation]', 'its id or the start of its title; without it, a list to pick from')
    .option('--print', 'print the tmux command instead of running it (for a script, or another terminal)')
    .option('--done', 'hand a Codex thread back to Rudder: the messages held while Codex had it run now')
    .addHelpText(
      'after',
      `
A Claude Code conversation opens in its tmux pane (tmux attach: detach with C-b d, and the
conversation goes on driving the same pane). A headless one (claude-stream) moves to a pane
first, once its running turn ends (press s to stop the turn instead of waiting); messages sent
meanwhile wait and run there, in order. A Codex conversation opens its thread in Codex's TUI
here and hands it back to Rudder when Codex exits; its messages wait meanwhile. With --print (or
no terminal) it prints the codex resume line instead, and the thread goes back on Enter here,
--done, or /retry.
Run it on the machine where the conversation's agent runs: for a project on a node, on that
node's machine, with RUDDER_URL and RUDDER_TOKEN naming the gateway (the node does the move).
The gateway is found as for rudder send (RUDDER_URL, RUDDER_TOKEN).

Examples:
  rudder attach            pick from the newest conversations
  rudder attach c-1a2b3c4d
  rudder attach "fix the"  the conversation whose title starts with "fix the"`,
    )
    .action(async (conversation: string | undefined, opts: AttachOptions) => {
      process.exitCode = await attach(conversation, opts);
    });
}

const say = (line: string) => void process.stderr.write(`${line}\n`);

/** A word as a POSIX shell reads it back. */
const quote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

export async function attach(conversation: string | undefined, opts: AttachOptions): Promise<number> {
  const ep = endpoint();
  const list = (await call<ConversationList>(ep, 'GET', '/api/conversations')).conversations;
  const picked = conversation ? named(list, conversation) : await pick(list, 'rudder attach');
  if ('problem' in picked) {
    say(`rudder attach: ${picked.problem}`);
    return picked.exitCode;
  }
  const key = picked.item.id;
  const path = `/api/conversations/${encodeURIComponent(key)}/terminal`;
  try {
    if (opts.done) return handBack(ep, key, path);
    const plan = await call<TerminalPlan>(ep, 'GET', path);
    const answer = await open(ep, key, path, plan);
    if (answer.way === 'codex') {
      if (!opts.print && process.stdin.isTTY && process.stdout.isTTY && fs.existsSync(answer.cwd)) {
        say(`Thread ${answer.threadId} opens in Codex here; it goes back to Rudder when Codex exits.`);
        say('(If Codex says it is open in another app, Rudder’s Codex still has it loaded: press r in a minute.)');
        if (await runHere(answer.argv)) return handBack(ep, key, path);
      }
      process.stdout.write(`${answer.argv.map(quote).join(' ')}\n`);
      if (answer.node) say(`Run it on node ${answer.node}'s machine: the thread is there.`);
      say(`⚠️ ${answer.warning}`);
      if (!process.stdin.isTTY) return 0;
      await waitForEnter('Press Enter here once you have closed Codex, to hand the thread back to Rudder.');
      return handBack(ep, key, path);
    }
    return await attachPane(answer, key, opts);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    say(`rudder attach: ${err.message}`);
    return 1;
  }
}

/** Runs Codex's TUI in this terminal until it exits; false when it could not start (the line is printed then). */
function runHere(argv: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: 'inherit' });
    child.on('error', (e) => {
      say(`rudder attach: ${argv[0]} could not run here (${e.message}).`);
      resolve(false);
    });
    child.on('exit', () => resolve(true));
  });
}

/** The thread back from Codex: what Rudder held meanwhile runs now. */
async function handBack(ep: Endpoint, key: string, path: string): Promise<number> {
  const { resumed } = await call<TerminalBack>(ep, 'DELETE', path);
  say(
    resumed < 0
      ? `Nothing of ${key} was held for a terminal.`
      : `Handed back: ${key} runs here again (${resumed} held message(s) now run, in order).`,
  );
  return 0;
}

function waitForEnter(prompt: string): Promise<void> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  return new Promise((resolve) =>
    rl.question(`${prompt} `, () => {
      rl.close();
      resolve();
    }),
  );
}

/** Asks the gateway until it answers where to attach (never "waiting"); while a turn runs, s stops it (a terminal). */
async function open(
  ep: Endpoint,
  key: string,
  path: string,
  plan: TerminalPlan,
): Promise<TerminalPane | TerminalCodex> {
  if (plan.busy && plan.way !== 'pane')
    say(`A turn is running in ${key}: the session goes to the terminal when it ends. Press s to stop it, or wait.`);
  else if (plan.way === 'move') say(`Moving the session of ${key} to a terminal pane${on(plan.node)}…`);
  const stopKey = plan.way !== 'pane' && plan.busy ? offerStop(ep, key) : () => {};
  try {
    for (;;) {
      const answer = await call<TerminalAnswer>(ep, 'POST', path);
      if (answer.way !== 'waiting') return answer;
    }
  } finally {
    stopKey();
  }
}

/** s (in a terminal) stops the running turn, as the page's Stop does; returns what puts the keyboard back. */
function offerStop(ep: Endpoint, key: string): () => void {
  const input = process.stdin;
  if (!input.isTTY) return () => {};
  readline.emitKeypressEvents(input);
  input.setRawMode(true);
  const onKey = (_: string, k: { name?: string; ctrl?: boolean }) => {
    if (k.ctrl && k.name === 'c') process.exit(130);
    if (k.name !== 's') return;
    say('Stopping the running turn…');
    void call(ep, 'POST', `/api/conversations/${encodeURIComponent(key)}/stop`).catch((e: Error) =>
      say(`The stop failed: ${e.message}`),
    );
  };
  input.on('keypress', onKey);
  return () => {
    input.off('keypress', onKey);
    input.setRawMode(false);
    input.pause();
  };
}

const on = (node: string | undefined) => (node ? ` on node ${node}` : '');

/** Attaches this terminal to the pane (tmux attach, the terminal handed over), or prints the command. */
async function attachPane(p: TerminalPane, key: string, opts: AttachOptions): Promise<number> {
  if (p.moved) say(`The session now runs in pane ${p.label}${on(p.node)}; this conversation follows it there.`);
  const argv = ['tmux', '-S', p.socket, 'attach-session', '-t', p.target];
  if (opts.print || !process.stdout.isTTY) {
    process.stdout.write(`${argv.map(quote).join(' ')}\n`);
    return 0;
  }
  // The socket is a path on the node's machine: a terminal elsewhere cannot reach its tmux server.
  if (p.node && !fs.existsSync(p.socket)) {
    say(`The pane is on node ${p.node}'s machine: run rudder attach ${key} there (RUDDER_URL naming this gateway).`);
    return 1;
  }
  // An enclosing tmux would refuse to nest; this is another server, so its variable is left out.
  const { TMUX: _enclosing, ...env } = process.env;
  const code = await new Promise<number>((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: 'inherit', env });
    child.on('error', (e) => {
      say(`rudder attach: tmux could not run (${e.message}).`);
      resolve(1);
    });
    child.on('exit', (c) => resolve(c ?? 1));
  });
  if (code === 0) say(`Detached. Conversation ${key} goes on driving pane ${p.label} from the phone.`);
  return code;
}
