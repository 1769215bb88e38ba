/**
 * Re-makes the committed TUI captures under tests/fixtures/panes/:
 *   npx tsx tests/support/tui-capture.ts [--bin PATH] [--only id,id] [--sizes 80x24,200x50] [--out DIR]
 * Each scenario starts claude (the pinned one, or --bin) in a tmux pane (private socket) against the
 * mock API, performs its steps, and writes <W>x<H>/<state>--<how>.txt (+ .ansi.txt) and a manifest
 * entry. Another version's captures go under <version>/<W>x<H>/, with that version's scenarios.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Tmux, tmuxVersion } from '../../src/agents/tmux/pane/tmux.js';
import { CLAUDE_BIN, claudeEnv, REPO_ROOT, SHELL_PROMPT, startRig } from './tui-rig.js';
import { SCENARIOS } from './tui-scenarios.js';
import { SCENARIOS_112 } from './tui-scenarios-112.js';
import { type Scenario, type Shot, ShotContext } from './tui-shot.js';

export const FIXTURE_DIR = path.join(REPO_ROOT, 'tests/fixtures/panes');
const DEFAULT_SIZES: Array<[number, number]> = [
  [80, 24],
  [200, 50],
];

/** The pinned CLI's captures sit at the top; other versions' in a folder named by the version. */
const PINNED_VERSION = '2.1.332';
const SCENARIO_SETS: Record<string, Scenario[]> = { [PINNED_VERSION]: SCENARIOS, '2.1.112': SCENARIOS_112 };

/** What each seed option writes into the fresh HOME (the dialog it answers in advance). */
const SEED_KEYS = {
  onboarded: '~/.claude.json hasCompletedOnboarding: true (without it an offline first run exits 1)',
  trusted: '~/.claude.json projects[<cwd>].hasTrustDialogAccepted: true (skips "Quick safety check")',
  apiKeyApproved:
    '~/.claude.json customApiKeyResponses.approved: [last 20 chars of the key] (skips "Detected a custom API key")',
  bypassAccepted:
    '~/.claude/settings.json skipDangerousModePermissionPrompt: true (skips the bypass-permissions warning)',
};

export interface ManifestEntry {
  file: string;
  ansiFile: string;
  state: string;
  expected: Shot['expected'];
  why: string;
  steps: string[];
  verified: string;
  width: number;
  height: number;
  cliVersion: string;
  /** Which build of the CLI ran: the native binary, or the npm package's pure-JS cli.js under node. */
  cliBuild: string;
  tmuxVersion: string;
  paneDead: boolean;
  paneDeadStatus: number | null;
  /** `#{pane_current_command}` at the capture: claude's program, or the shell once claude exited. */
  paneCommand?: string;
  alternateScreen: boolean;
  capturedAt: string;
}

/** How the binary is built: 2.1.332 ships a native executable, 2.1.112 is the npm package's cli.js. */
function cliBuild(bin: string, version: string): string {
  const real = fs.realpathSync(bin);
  return real.endsWith('.js')
    ? `@anthropic-ai/claude-code@${version} from npm: cli.js run by node (pure JS)`
    : `@anthropic-ai/claude-code@${version}: native binary (${path.basename(real)})`;
}

function describeStart(scenario: Scenario, width: number, height: number): string {
  const seed = scenario.setup.seed ?? { onboarded: true, trusted: true, apiKeyApproved: true, bypassAccepted: true };
  const answered = Object.entries(seed)
    .filter(([, v]) => v)
    .map(([k]) => k)
    .join(', ');
  const args = (scenario.setup.args ?? []).join(' ') || '(no arguments)';
  const script = scenario.setup.makeScript ? ', mock script for this scenario' : '';
  const auth = scenario.setup.auth === 'oauth' ? ', logged in with a subscription token (CLAUDE_CODE_OAUTH_TOKEN)' : '';
  const shell = scenario.setup.viaShell ? ` (typed into an interactive bash --norc, PS1 "${SHELL_PROMPT}")` : '';
  return (
    `tmux new-session -d -x ${width} -y ${height}: claude ${args}${shell}; fresh HOME seeded with ` +
    `[${answered}]; mock Messages API${script}${auth}`
  );
}

async function runScenario(
  tmux: Tmux,
  bin: string,
  scenario: Scenario,
  width: number,
  height: number,
): Promise<Shot[]> {
  const { args, seed, makeScript, auth, viaShell } = scenario.setup;
  const rig = await startRig({
    tmux,
    name: `cap-${scenario.id}-${width}x${height}`,
    width,
    height,
    args,
    seed,
    auth,
    viaShell,
    bin,
    script: makeScript?.(),
  });
  try {
    const ctx = new ShotContext(rig, describeStart(scenario, width, height));
    await scenario.run(ctx);
    return ctx.shots;
  } finally {
    await rig.stop();
  }
}

function readManifest(file: string): ManifestEntry[] {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')).captures ?? [];
  } catch {
    return [];
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const bin = path.resolve(opt('--bin') ?? CLAUDE_BIN);
  const cliVersion = (await promisify(execFile)(bin, ['--version'])).stdout.trim();
  const version = cliVersion.split(' ')[0]!;
  const scenarios = SCENARIO_SETS[version];
  if (!scenarios)
    throw new Error(`no capture scenarios for claude ${version}; known: ${Object.keys(SCENARIO_SETS).join(', ')}`);
  const prefix = version === PINNED_VERSION ? '' : `${version}/`;
  const build = cliBuild(bin, version);
  const only = opt('--only')?.split(',');
  const unknown = only?.filter((id) => !scenarios.some((s) => s.id === id)) ?? [];
  if (unknown.length)
    console.warn(
      `unknown scenario ids (rewriting the manifest only): ${unknown.join(', ')}; ` +
        `known: ${scenarios.map((s) => s.id).join(', ')}`,
    );
  const sizes = opt('--sizes')
    ?.split(',')
    .map((s) => s.split('x').map(Number) as [number, number]);
  const tmuxV = await tmuxVersion();
  const tmux = new Tmux({ name: `rudder-capture-${process.pid}` });
  const outDir = path.resolve(opt('--out') ?? FIXTURE_DIR);
  const manifestFile = path.join(outDir, 'manifest.json');
  const entries = new Map(readManifest(manifestFile).map((e) => [e.file, e]));
  const failures: string[] = [];
  try {
    for (const scenario of scenarios.filter((s) => !only || only.includes(s.id))) {
      for (const [width, height] of sizes ?? scenario.sizes ?? DEFAULT_SIZES) {
        process.stdout.write(`${scenario.id} ${width}x${height} ... `);
        let shots: Shot[];
        try {
          shots = await runScenario(tmux, bin, scenario, width, height);
        } catch (err) {
          failures.push(`${scenario.id} ${width}x${height}`);
          console.log(`FAILED: ${(err as Error).message}`);
          continue;
        }
        for (const shot of shots) {
          const base = `${prefix}${width}x${height}/${shot.state}--${shot.how}`;
          fs.mkdirSync(path.join(outDir, `${prefix}${width}x${height}`), { recursive: true });
          fs.writeFileSync(path.join(outDir, `${base}.txt`), shot.text);
          fs.writeFileSync(path.join(outDir, `${base}.ansi.txt`), shot.ansi);
          entries.set(`${base}.txt`, {
            file: `${base}.txt`,
            ansiFile: `${base}.ansi.txt`,
            state: shot.state,
            expected: shot.expected,
            why: shot.why,
            steps: shot.steps,
            verified: shot.verified,
            width,
            height,
            cliVersion,
            cliBuild: build,
            tmuxVersion: tmuxV,
            paneDead: shot.info.dead,
            paneDeadStatus: shot.info.deadStatus ?? null,
            ...(shot.info.command ? { paneCommand: shot.info.command } : {}),
            alternateScreen: shot.info.alternateScreen,
            capturedAt: new Date(shot.capturedAtMs).toISOString(),
          });
        }
        console.log(`${shots.length} captures`);
      }
    }
  } finally {
    await tmux.killServer();
  }
  const captures = [...entries.values()].sort((a, b) => a.file.localeCompare(b.file));
  const header = {
    description:
      'Real captures of the Claude Code TUI in tmux against the mock Messages API: the pinned 2.1.332 at the ' +
      'top, the older pure-JS 2.1.112 under 2.1.112/. `expected` follows from `steps`, not from any classifier.',
    remake: 'npx tsx tests/support/tui-capture.ts [--bin PATH] [--only id,id] [--sizes 80x24,200x50] [--out DIR]',
    environment: Object.keys(claudeEnv('<fresh HOME>', '<mock url>')).join(' '),
    seed: SEED_KEYS,
    files: '<W>x<H>/<state>--<how>.txt is `capture-pane -p`; .ansi.txt is `capture-pane -p -e` taken right after it.',
  };
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(manifestFile, JSON.stringify({ ...header, captures }, null, 2) + '\n');
  if (failures.length) {
    console.error(`failed:\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) await main();
