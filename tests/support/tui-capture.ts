/**
 * Re-makes the committed TUI captures under tests/fixtures/panes/:
 *   npx tsx tests/support/tui-capture.ts [--only id,id] [--sizes 80x24,200x50] [--out DIR]
 * Each scenario starts the pinned claude in a tmux pane (private socket) against the mock API,
 * performs its steps, and writes <W>x<H>/<state>--<how>.txt (+ .ansi.txt) and a manifest entry.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Tmux, tmuxVersion } from '../../src/agents/tmux/tmux.js';
import { CLAUDE_BIN, claudeEnv, REPO_ROOT, startRig } from './tui-rig.js';
import { SCENARIOS } from './tui-scenarios.js';
import { ShotContext, type Scenario, type Shot } from './tui-shot.js';

export const FIXTURE_DIR = path.join(REPO_ROOT, 'tests/fixtures/panes');
const DEFAULT_SIZES: Array<[number, number]> = [
  [80, 24],
  [200, 50],
];

/** What each seed option writes into the fresh HOME (the dialog it answers in advance). */
const SEED_KEYS = {
  onboarded: '~/.claude.json hasCompletedOnboarding: true (without it an offline first run exits 1)',
  trusted: '~/.claude.json projects[<cwd>].hasTrustDialogAccepted: true (skips "Quick safety check")',
  apiKeyApproved: '~/.claude.json customApiKeyResponses.approved: [last 20 chars of the key] (skips "Detected a custom API key")',
  bypassAccepted: '~/.claude/settings.json skipDangerousModePermissionPrompt: true (skips the bypass-permissions warning)',
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
  tmuxVersion: string;
  paneDead: boolean;
  paneDeadStatus: number | null;
  alternateScreen: boolean;
  capturedAt: string;
}

function describeStart(scenario: Scenario, width: number, height: number): string {
  const seed = scenario.setup.seed ?? { onboarded: true, trusted: true, apiKeyApproved: true, bypassAccepted: true };
  const answered = Object.entries(seed).filter(([, v]) => v).map(([k]) => k).join(', ');
  const args = (scenario.setup.args ?? []).join(' ') || '(no arguments)';
  const script = scenario.setup.makeScript ? ', mock script for this scenario' : '';
  return `tmux new-session -d -x ${width} -y ${height}: claude ${args}; fresh HOME seeded with [${answered}]; mock Messages API${script}`;
}

async function runScenario(tmux: Tmux, scenario: Scenario, width: number, height: number): Promise<Shot[]> {
  const { args, seed, makeScript } = scenario.setup;
  const rig = await startRig({ tmux, name: `cap-${scenario.id}-${width}x${height}`, width, height, args, seed, script: makeScript?.() });
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
  const only = opt('--only')?.split(',');
  const unknown = only?.filter((id) => !SCENARIOS.some((s) => s.id === id)) ?? [];
  if (unknown.length) console.warn(`unknown scenario ids (rewriting the manifest only): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  const sizes = opt('--sizes')?.split(',').map((s) => s.split('x').map(Number) as [number, number]);
  const cliVersion = (await promisify(execFile)(CLAUDE_BIN, ['--version'])).stdout.trim();
  const tmuxV = await tmuxVersion();
  const tmux = new Tmux({ name: `rudder-capture-${process.pid}` });
  const outDir = path.resolve(opt('--out') ?? FIXTURE_DIR);
  const manifestFile = path.join(outDir, 'manifest.json');
  const entries = new Map(readManifest(manifestFile).map((e) => [e.file, e]));
  const failures: string[] = [];
  try {
    for (const scenario of SCENARIOS.filter((s) => !only || only.includes(s.id))) {
      for (const [width, height] of sizes ?? scenario.sizes ?? DEFAULT_SIZES) {
        process.stdout.write(`${scenario.id} ${width}x${height} ... `);
        let shots: Shot[];
        try {
          shots = await runScenario(tmux, scenario, width, height);
        } catch (err) {
          failures.push(`${scenario.id} ${width}x${height}`);
          console.log(`FAILED: ${(err as Error).message}`);
          continue;
        }
        for (const shot of shots) {
          const base = `${width}x${height}/${shot.state}--${shot.how}`;
          fs.mkdirSync(path.join(outDir, `${width}x${height}`), { recursive: true });
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
            tmuxVersion: tmuxV,
            paneDead: shot.info.dead,
            paneDeadStatus: shot.info.deadStatus ?? null,
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
    description: 'Real captures of the pinned Claude Code TUI in tmux against the mock Messages API. `expected` follows from `steps`, not from any classifier.',
    remake: 'npx tsx tests/support/tui-capture.ts [--only id,id] [--sizes 80x24,200x50] [--out DIR]',
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
