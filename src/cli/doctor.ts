/**
 * `rudder doctor`: checks the claude binary (a real stream-json probe), an auth source, one real
 * model request with the agent's environment (doctor-model.ts), the data dir, the SQLite store,
 * the config, tmux and the TUI's first run when the claude-tmux backend is configured, codex
 * (binary, version, app-server handshake, auth, a minimal request) when a conversation may run on
 * it, the fallback endpoint, each channel's token, and with nodes the NATS connection, JetStream,
 * the streams and each node (nodes/doctor.ts). Prints how to fix what fails; exits 1 when a
 * required check fails. It changes nothing: no data dir or store is created.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { buildAgentEnv } from '../agents/claude/env.js';
import { switchOn } from '../agents/claude/env-vars.js';
import { checkClaude } from '../agents/claude/health.js';
import { buildCodexEnv } from '../agents/codex/env.js';
import { checkCodex } from '../agents/codex/health.js';
import { dataDir, findConfigFile, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { StatusReport } from '../http/wire.js';
import { inspectDataDir } from '../ops/data-dir.js';
import { call, endpoint } from './client.js';
import type { Check } from './doctor-check.js';
import { probeModel } from './doctor-model.js';

export type { Check } from './doctor-check.js';

const exec = promisify(execFile);

export function register(program: Command): void {
  program
    .command('doctor')
    .description('check the machine and the config, and say how to fix what fails')
    .addHelpText(
      'after',
      `
Checks the claude binary (its version, and a real stream-json probe), an auth source, one real
model request through claude with the agent's environment (a one-word prompt, no tools, no
saved session; a failure names its cause: DNS, a refused connection, 401, 403, the proxy, a
timeout), the data dir and the store, the config, tmux and the TUI's first run when
agent.backend is claude-tmux, codex (binary, version, app-server handshake, auth, one short
request) when agent.backend or a project's backend is codex, the fallback model, each
channel's token, and with a nodes section (or on a node) the NATS connection, JetStream, the
streams and each node's heartbeat. Creates nothing. Exits 1 when a required check fails.`,
    )
    .option('--timeout <seconds>', 'how long the model request waits for an answer', '30')
    .action(async (opts: { timeout: string }) => {
      const seconds = Number(opts.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) {
        process.stderr.write(`rudder doctor: --timeout must be a number of seconds above 0, not "${opts.timeout}"\n`);
        process.exitCode = 2;
        return;
      }
      process.exitCode = await run({ answerTimeoutMs: seconds * 1000 });
    });
}

export interface DoctorOptions {
  /** How long the model request waits for an answer (--timeout). */
  answerTimeoutMs?: number;
}

/** Whether the model can be reached is unknown: a failed check, never a silent pass. */
const notChecked = (why: string): Check => ({
  name: 'model request',
  ok: false,
  required: true,
  detail: `not checked: ${why}`,
});

const say = (line: string) => process.stderr.write(`rudder doctor: ${line}\n`);

async function claudeChecks(config: Config | undefined, checks: Check[], opts: DoctorOptions): Promise<void> {
  const env = buildAgentEnv({ passVars: config?.agent.passEnv, extra: config?.agent.env });
  const c = await checkClaude({ configured: config?.agent.claudeBin, env: process.env, agentEnv: env }, 20_000);
  if (!c.source) {
    checks.push({ name: 'claude binary', ok: false, required: true, detail: c.problem!, fix: c.fix! });
    checks.push(notChecked('there is no claude binary to send it'));
    return;
  }
  checks.push({ name: 'claude binary', ok: true, required: true, detail: `${c.path} (from ${c.source})` });
  if (!c.ok) {
    checks.push({ name: 'claude version', ok: false, required: true, detail: c.problem!, fix: c.fix! });
    checks.push(notChecked('the claude binary does not run'));
    return;
  }
  checks.push({ name: 'claude version', ok: true, required: true, detail: c.version! });
  // A real probe: the CLI must accept the persistent stream-json mode and exit cleanly on empty input.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-doctor-'));
  const probeStarted = Date.now();
  let startupMs: number | undefined;
  try {
    const probe = exec(
      c.path!,
      ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'],
      { env: { ...env, HOME: home }, timeout: 30_000 },
    );
    probe.child.stdin?.end(); // no input: a CLI that accepts the mode exits 0 at once
    await probe;
    startupMs = Date.now() - probeStarted;
    checks.push({ name: 'claude stream-json', ok: true, required: true, detail: 'accepts --input-format stream-json' });
  } catch (err) {
    checks.push({
      name: 'claude stream-json',
      ok: false,
      required: true,
      detail: (err as { stderr?: string }).stderr?.trim().split('\n')[0] || (err as Error).message.split('\n')[0]!,
      fix: 'Use Claude Code 2.1.x or newer (the pinned version is 2.1.332).',
    });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  const agentHome = env.HOME ?? os.homedir();
  const sources = [
    ...['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'].filter((k) => env[k]),
    ...['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY'].filter((k) => switchOn(env[k])),
    fs.existsSync(path.join(agentHome, '.claude', '.credentials.json'))
      ? 'a CLI login (~/.claude/.credentials.json)'
      : '',
    /"oauthAccount"/.test(readOr(path.join(agentHome, '.claude.json'))) ? 'a CLI login (~/.claude.json)' : '',
  ].filter(Boolean);
  const model =
    startupMs === undefined
      ? notChecked('claude does not accept the stream-json mode')
      : await probeModel({
          bin: c.path!,
          env,
          model: config?.agent.model,
          startupMs,
          answerTimeoutMs: opts.answerTimeoutMs ?? 30_000,
          say,
        });
  // The request is the proof: an answer means some auth source works, found here or not (apiKeyHelper…).
  checks.push({
    name: 'auth',
    ok: sources.length > 0 || model.ok,
    required: true,
    detail: sources.length
      ? sources.join(', ')
      : model.ok
        ? 'none found here, but the model request was answered'
        : 'no API key, OAuth token or CLI login found',
    fix:
      'Run `claude` once and log in, or set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN from `claude ' +
      'setup-token`) in the environment Rudder runs in, or in agent.env.',
  });
  checks.push(model);
  if (config?.agent.permissionMode === 'bypassPermissions' && process.getuid?.() === 0 && env.IS_SANDBOX !== '1') {
    checks.push({
      name: 'bypass as root',
      ok: false,
      required: true,
      detail: 'the CLI refuses bypass mode as root',
      fix: 'Set agent.env.IS_SANDBOX to "1" (only in a sandbox), or use another permission mode.',
    });
  }
}

/** The TUI exits at start (offline: status 1) until its first-run screens were done once in this HOME. */
function tuiFirstRun(home: string): Check {
  const file = path.join(home, '.claude.json');
  const fix =
    `Run \`claude\` once in a terminal as the user Rudder runs as (HOME=${home}) and finish its ` +
    `first-run screens; the claude-tmux backend cannot answer them.`;
  const text = readOr(file);
  if (!text)
    return {
      name: 'claude first run',
      ok: false,
      required: true,
      detail: `${file} is missing: the TUI has never run in this HOME`,
      fix,
    };
  let onboarded = false;
  try {
    onboarded = (JSON.parse(text) as { hasCompletedOnboarding?: unknown }).hasCompletedOnboarding === true;
  } catch {
    return {
      name: 'claude first run',
      ok: false,
      required: true,
      detail: `${file} is not valid JSON`,
      fix: `Move ${file} aside, then: ${fix}`,
    };
  }
  return onboarded
    ? { name: 'claude first run', ok: true, required: true, detail: `${file} has hasCompletedOnboarding` }
    : {
        name: 'claude first run',
        ok: false,
        required: true,
        detail: `${file} lacks hasCompletedOnboarding: true (the first-run screens were not finished)`,
        fix,
      };
}

/** Channels the gateway running on this data dir has not started (none when no gateway runs). */
async function runningChannelChecks(): Promise<Check[]> {
  let s: StatusReport;
  try {
    s = await call<StatusReport>(endpoint(), 'GET', '/api/status');
  } catch {
    return [];
  }
  return s.channels
    .filter((c) => !c.started)
    .map((c) => ({
      name: `running channel ${c.name}`,
      ok: false,
      required: false,
      detail: `not started: ${c.error ?? c.state}`,
      fix: `See rudder.log; the gateway keeps trying (check channels.${c.name} and that its platform can be reached).`,
    }));
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The nearest directory on the way up that exists. */
function existingAncestor(dir: string): string {
  let d = dir;
  while (!fs.existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  return d;
}

async function storeChecks(checks: Check[]): Promise<void> {
  const dir = dataDir();
  const fixDir = 'Set RUDDER_HOME to a writable directory.';
  if (!fs.existsSync(dir)) {
    const parent = existingAncestor(dir);
    try {
      fs.accessSync(parent, fs.constants.W_OK);
      checks.push({
        name: 'data dir',
        ok: true,
        required: true,
        detail: `${dir} does not exist yet; rudder start creates it (${parent} is writable)`,
      });
      checks.push({
        name: 'store',
        ok: true,
        required: true,
        detail: `no store yet; rudder start creates ${path.join(dir, 'rudder.db')}`,
      });
    } catch {
      checks.push({
        name: 'data dir',
        ok: false,
        required: true,
        detail: `${dir} does not exist and ${parent} is not writable`,
        fix: fixDir,
      });
    }
    return;
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    inspectDataDir(dir);
    checks.push({ name: 'data dir', ok: true, required: true, detail: `${dir} is yours, private and writable` });
  } catch (err) {
    checks.push({
      name: 'data dir',
      ok: false,
      required: true,
      detail: (err as Error).message,
      fix: 'Set RUDDER_HOME to a private directory of your own (0700, owned by you).',
    });
    return;
  }
  const file = path.join(dir, 'rudder.db');
  if (!fs.existsSync(file)) {
    checks.push({ name: 'store', ok: true, required: true, detail: `no store yet; rudder start creates ${file}` });
    return;
  }
  const fix =
    'Stop Rudder and move rudder.db (with rudder.db-wal and rudder.db-shm) aside; a new store is created at ' +
    'the next start. rudder backup copies a store that still opens.';
  try {
    const [{ default: Database }, { integrityCheck }] = await Promise.all([
      import('better-sqlite3'),
      import('../store/db.js'),
    ]);
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const integrity = integrityCheck(db);
      checks.push({
        name: 'store',
        ok: integrity === 'ok',
        required: true,
        detail: `SQLite integrity: ${integrity}`,
        fix,
      });
    } finally {
      db.close();
    }
  } catch (err) {
    checks.push({ name: 'store', ok: false, required: true, detail: `${file}: ${(err as Error).message}`, fix });
  }
}

export async function doctor(opts: DoctorOptions = {}): Promise<Check[]> {
  const checks: Check[] = [];
  let config: Config | undefined;
  const file = findConfigFile();
  try {
    config = loadConfig(file).config;
    checks.push({ name: 'config', ok: true, required: true, detail: file ?? 'no config file: running on defaults' });
  } catch (err) {
    checks.push({
      name: 'config',
      ok: false,
      required: true,
      detail: (err as Error).message,
      fix: 'Fix the keys named above; the README documents each one.',
    });
  }
  await storeChecks(checks);
  checks.push(...(await runningChannelChecks()));
  // Read before the model request runs claude, which writes its own state into the agent HOME.
  const firstRun =
    config?.agent.backend === 'claude-tmux'
      ? tuiFirstRun(buildAgentEnv({ passVars: config.agent.passEnv, extra: config.agent.env }).HOME ?? os.homedir())
      : undefined;
  await claudeChecks(config, checks, opts);
  const backends = [config?.agent.backend, ...Object.values(config?.projects ?? {}).map((p) => p.backend)];
  if (config && backends.includes('codex'))
    checks.push(
      ...(await checkCodex({
        configured: config.agent.codex.bin,
        config: config.agent.codex.config,
        env: process.env,
        agentEnv: buildCodexEnv({ passVars: config.agent.passEnv, extra: config.agent.env }),
      })),
    );
  if (config?.agent.backend === 'claude-tmux') {
    try {
      const { stdout } = await exec('tmux', ['-V']);
      checks.push({ name: 'tmux', ok: true, required: true, detail: stdout.trim() });
    } catch {
      checks.push({
        name: 'tmux',
        ok: false,
        required: true,
        detail: 'tmux is not installed',
        fix: 'apt-get install -y tmux (or use agent.backend "claude-stream").',
      });
    }
    checks.push(firstRun!);
  }
  if (config?.fallback) {
    const { LocalModel } = await import('../fallback/local-model.js');
    const p = await new LocalModel(config.fallback).probe();
    checks.push({
      name: 'fallback model',
      ok: p.ok,
      required: false,
      detail: p.detail,
      fix:
        `Start the local model server (e.g. ollama serve; ollama pull ${config.fallback.model}) or fix ` +
        `fallback.baseURL.`,
    });
  } else {
    checks.push({
      name: 'fallback model',
      ok: true,
      required: false,
      detail: 'not configured (rate-limited turns wait for the reset)',
    });
  }
  if (config) {
    const { nodeChecks } = await import('../nodes/doctor.js');
    checks.push(...(await nodeChecks(config, dataDir())));
  }
  if (config) {
    const [{ createChannels }, { silentLogger }] = await Promise.all([
      import('../channels/registry.js'),
      import('../ops/logger.js'),
    ]);
    for (const ch of await createChannels(config.channels, { dataDir: dataDir(), logger: silentLogger() }).catch(
      () => [],
    )) {
      const p = ch.probe
        ? await ch.probe().catch((err: Error) => ({ ok: false, detail: err.message }))
        : { ok: true, detail: 'no probe' };
      checks.push({
        name: `channel ${ch.name}`,
        ok: p.ok,
        required: false,
        detail: p.detail,
        fix: `Check the token in channels.${ch.name}.`,
      });
    }
  }
  return checks;
}

export async function run(opts: DoctorOptions = {}): Promise<number> {
  const checks = await doctor(opts);
  for (const c of checks) {
    process.stdout.write(`${c.ok ? '✔' : c.required ? '✘' : '!'} ${c.name}: ${c.detail}\n`);
    if (!c.ok && c.fix) process.stdout.write(`    fix: ${c.fix}\n`);
  }
  const failed = checks.filter((c) => !c.ok && c.required);
  process.stdout.write(
    failed.length ? `\n${failed.length} required check(s) failed.\n` : '\nAll required checks passed.\n',
  );
  return failed.length ? 1 : 0;
}
