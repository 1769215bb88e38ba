/**
 * `rudder doctor`: checks the claude binary (a real stream-json probe), an auth source, the data
 * dir, the SQLite store, the config, tmux when configured, the fallback endpoint and each channel's
 * token. Prints how to fix what fails; exits non-zero when a required check fails.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolveClaudeBinary } from '../agents/claude/binary.js';
import { buildAgentEnv } from '../agents/claude/env.js';
import { createChannels } from '../channels/registry.js';
import { dataDir, findConfigFile, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { LocalModel } from '../fallback/local-model.js';
import { silentLogger } from '../ops/logger.js';
import { prepareDataDir } from '../ops/data-dir.js';
import type { StatusReport } from '../ops/status.js';
import { Store } from '../store/store.js';
import { call, endpoint } from './client.js';

const exec = promisify(execFile);

export interface Check {
  name: string;
  ok: boolean;
  required: boolean;
  detail: string;
  fix?: string;
}

async function claudeChecks(config: Config | undefined, checks: Check[]): Promise<void> {
  let bin: string;
  try {
    const r = resolveClaudeBinary(config?.agent.claudeBin);
    bin = r.path;
    checks.push({ name: 'claude binary', ok: true, required: true, detail: `${r.path} (from ${r.source})` });
  } catch (err) {
    checks.push({ name: 'claude binary', ok: false, required: true, detail: (err as Error).message, fix: 'npm install (it brings the pinned @anthropic-ai/claude-code), or set agent.claudeBin / RUDDER_CLAUDE_BIN.' });
    return;
  }
  const env = buildAgentEnv({ passVars: config?.agent.passEnv, extra: config?.agent.env });
  try {
    const { stdout } = await exec(bin, ['--version'], { env, timeout: 20_000 });
    checks.push({ name: 'claude version', ok: true, required: true, detail: stdout.trim() });
  } catch (err) {
    checks.push({ name: 'claude version', ok: false, required: true, detail: (err as Error).message.split('\n')[0]!, fix: 'Reinstall Claude Code (npm ci) or point agent.claudeBin at a working binary.' });
    return;
  }
  try {
    // A real probe: the CLI must accept the persistent stream-json mode and exit cleanly on empty input.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-doctor-'));
    const probe = exec(bin, ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], { env: { ...env, HOME: home }, timeout: 30_000 });
    probe.child.stdin?.end(); // no input: a CLI that accepts the mode exits 0 at once
    await probe;
    fs.rmSync(home, { recursive: true, force: true });
    checks.push({ name: 'claude stream-json', ok: true, required: true, detail: 'accepts --input-format stream-json' });
  } catch (err) {
    checks.push({ name: 'claude stream-json', ok: false, required: true, detail: (err as { stderr?: string }).stderr?.trim().split('\n')[0] || (err as Error).message.split('\n')[0]!, fix: 'Use Claude Code 2.1.x or newer (the pinned version is 2.1.332).' });
  }
  const home = env.HOME ?? os.homedir();
  const sources = [
    env.ANTHROPIC_API_KEY ? 'ANTHROPIC_API_KEY' : '',
    env.CLAUDE_CODE_OAUTH_TOKEN ? 'CLAUDE_CODE_OAUTH_TOKEN' : '',
    fs.existsSync(path.join(home, '.claude', '.credentials.json')) ? 'a CLI login (~/.claude/.credentials.json)' : '',
    /"oauthAccount"/.test(readOr(path.join(home, '.claude.json'))) ? 'a CLI login (~/.claude.json)' : '',
  ].filter(Boolean);
  checks.push({
    name: 'auth',
    ok: sources.length > 0,
    required: true,
    detail: sources.length ? sources.join(', ') : 'no API key, OAuth token or CLI login found',
    fix: 'Run `claude` once and log in, or set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`) in the environment Rudder runs in.',
  });
  if (config?.agent.permissionMode === 'bypassPermissions' && process.getuid?.() === 0 && env.IS_SANDBOX !== '1') {
    checks.push({ name: 'bypass as root', ok: false, required: true, detail: 'the CLI refuses bypass mode as root', fix: 'Set agent.env.IS_SANDBOX to "1" (only in a sandbox), or use another permission mode.' });
  }
}

/** Channels the gateway running on this data dir has not started (none when no gateway runs). */
async function runningChannelChecks(): Promise<Check[]> {
  let s: StatusReport;
  try {
    s = await call<StatusReport>(endpoint(), 'GET', '/api/status');
  } catch {
    return [];
  }
  return s.channels.filter((c) => !c.started).map((c) => ({ name: `running channel ${c.name}`, ok: false, required: false, detail: `not started: ${c.error ?? c.state}`, fix: `See rudder.log; the gateway keeps trying (check channels.${c.name} and that its platform can be reached).` }));
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export async function doctor(): Promise<Check[]> {
  const checks: Check[] = [];
  let config: Config | undefined;
  const file = findConfigFile();
  try {
    config = loadConfig(file).config;
    checks.push({ name: 'config', ok: true, required: true, detail: file ?? 'no config file: running on defaults' });
  } catch (err) {
    checks.push({ name: 'config', ok: false, required: true, detail: (err as Error).message, fix: 'Fix the keys named above; the README documents each one.' });
  }
  const dir = dataDir();
  try {
    prepareDataDir(dir);
    checks.push({ name: 'data dir', ok: true, required: true, detail: `${dir} is yours and private (0700)` });
    const store = new Store(path.join(dir, 'rudder.db'));
    const integrity = store.integrity();
    store.close();
    checks.push({ name: 'store', ok: integrity === 'ok', required: true, detail: `SQLite integrity: ${integrity}`, fix: 'Stop Rudder and move rudder.db aside; a new store is created at the next start.' });
  } catch (err) {
    checks.push({ name: 'data dir', ok: false, required: true, detail: (err as Error).message, fix: 'Set RUDDER_HOME to a private directory of your own.' });
  }
  checks.push(...(await runningChannelChecks()));
  await claudeChecks(config, checks);
  if (config?.agent.backend === 'claude-tmux') {
    try {
      const { stdout } = await exec('tmux', ['-V']);
      checks.push({ name: 'tmux', ok: true, required: true, detail: stdout.trim() });
    } catch {
      checks.push({ name: 'tmux', ok: false, required: true, detail: 'tmux is not installed', fix: 'apt-get install -y tmux (or use agent.backend "claude-stream").' });
    }
  }
  if (config?.fallback) {
    const p = await new LocalModel(config.fallback).probe();
    checks.push({ name: 'fallback model', ok: p.ok, required: false, detail: p.detail, fix: `Start the local model server (e.g. ollama serve; ollama pull ${config.fallback.model}) or fix fallback.baseURL.` });
  } else {
    checks.push({ name: 'fallback model', ok: true, required: false, detail: 'not configured (rate-limited turns wait for the reset)' });
  }
  if (config) {
    for (const ch of await createChannels(config.channels, { dataDir: dir, logger: silentLogger() }).catch(() => [])) {
      const p = ch.probe ? await ch.probe().catch((err: Error) => ({ ok: false, detail: err.message })) : { ok: true, detail: 'no probe' };
      checks.push({ name: `channel ${ch.name}`, ok: p.ok, required: false, detail: p.detail, fix: `Check the token in channels.${ch.name}.` });
    }
  }
  return checks;
}

export async function run(_argv: string[]): Promise<number> {
  const checks = await doctor();
  for (const c of checks) {
    process.stdout.write(`${c.ok ? '✔' : c.required ? '✘' : '!'} ${c.name}: ${c.detail}\n`);
    if (!c.ok && c.fix) process.stdout.write(`    fix: ${c.fix}\n`);
  }
  const failed = checks.filter((c) => !c.ok && c.required);
  process.stdout.write(failed.length ? `\n${failed.length} required check(s) failed.\n` : '\nAll required checks passed.\n');
  return failed.length ? 1 : 0;
}
