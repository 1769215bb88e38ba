/**
 * `rudder doctor`: runs every check and says how to fix what fails; exits 1 when a required check
 * fails. It changes nothing: no data dir or store is created. Its own checks: the config, the data
 * dir and the SQLite store, the channels a running gateway has not started, the fallback endpoint
 * and each channel's token. The agents' checks are their entries' in the agent table
 * (agents/table.ts: for Claude the binary, a real stream-json probe, an auth source and one real
 * model request; for Codex the binary, its version, an app-server handshake, the auth and one short
 * request; for the TUI, tmux and its first run); with nodes, the NATS checks are nodes/doctor.ts's.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { type Check, type DoctorInput, failed, passed } from '../agents/common/doctor.js';
import { entryOf } from '../agents/table.js';
import { dataDir, findConfigFile, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { StatusReport } from '../http/wire.js';
import { inspectDataDir } from '../ops/data-dir.js';
import { call, endpoint } from './client.js';

export type { Check } from '../agents/common/doctor.js';

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

const say = (line: string) => process.stderr.write(`rudder doctor: ${line}\n`);

export async function doctor(opts: DoctorOptions = {}): Promise<Check[]> {
  const { config, check } = configCheck();
  const checks = [check, ...(await storeChecks()), ...(await runningChannelChecks())];
  checks.push(...(await agentChecks(config, opts)), await fallbackCheck(config));
  if (config) {
    const { nodeChecks } = await import('../nodes/doctor.js');
    checks.push(...(await nodeChecks(config, dataDir())), ...(await channelChecks(config)));
  }
  return checks;
}

function configCheck(): { config: Config | undefined; check: Check } {
  const file = findConfigFile();
  try {
    const { config } = loadConfig(file);
    return { config, check: passed('config', file ?? 'no config file: running on defaults') };
  } catch (err) {
    return {
      config: undefined,
      check: failed(
        'config',
        (err as Error).message,
        'Fix the keys named above; docs/configuration.md documents each one.',
      ),
    };
  }
}

/**
 * Each agent's checks, as its entry in the agent table names them: Claude's always (as doctor always has; a
 * config that does not load runs on its defaults), required only when a backend runs on Claude, and the agent
 * of agent.backend and of every project's backend, each once; then agent.backend's own checks (the TUI's),
 * printed last.
 */
async function agentChecks(config: Config | undefined, opts: DoctorOptions): Promise<Check[]> {
  const input: DoctorInput = {
    agent: config?.agent,
    env: process.env,
    answerTimeoutMs: opts.answerTimeoutMs ?? 30_000,
    say,
  };
  const projects = Object.values(config?.projects ?? {}).flatMap((p) => (p.backend ? [p.backend] : []));
  const inUse = config ? [config.agent.backend, ...projects] : ['claude-stream'];
  const used = new Set(inUse.flatMap((b) => entryOf(b)?.doctor.agent ?? []));
  // The backend's own run first: they read the agent's HOME before Claude's model request writes its state there.
  const own = config ? ((await entryOf(config.agent.backend)?.doctor.backend?.(input)) ?? []) : [];
  const checks: Check[] = [];
  for (const agent of new Set(['claude-stream', ...inUse].flatMap((b) => entryOf(b)?.doctor.agent ?? []))) {
    // Claude's checks when no conversation runs on Claude: shown, but no reason for doctor to fail.
    const found = await agent(input);
    checks.push(...(used.has(agent) ? found : found.map((c) => ({ ...c, required: false }))));
  }
  return [...checks, ...own];
}

async function fallbackCheck(config: Config | undefined): Promise<Check> {
  if (!config?.fallback)
    return passed('fallback model', 'not configured (rate-limited turns wait for the reset)', false);
  const { LocalModel } = await import('../fallback/local-model.js');
  const p = await new LocalModel(config.fallback).probe();
  const fix =
    `Start the local model server (e.g. ollama serve; ollama pull ${config.fallback.model}) or fix ` +
    `fallback.baseURL.`;
  return { name: 'fallback model', ok: p.ok, required: false, detail: p.detail, fix };
}

/** Each configured channel's probe (its token). */
async function channelChecks(config: Config): Promise<Check[]> {
  const [{ createChannels }, { silentLogger }] = await Promise.all([
    import('../channels/registry.js'),
    import('../ops/logger.js'),
  ]);
  const checks: Check[] = [];
  const channels = await createChannels(config.channels, { dataDir: dataDir(), logger: silentLogger() }).catch(
    () => [],
  );
  for (const ch of channels) {
    const p = ch.probe
      ? await ch.probe().catch((err: Error) => ({ ok: false, detail: err.message }))
      : { ok: true, detail: 'no probe' };
    const fix = `Check the token in channels.${ch.name}.`;
    checks.push({ name: `channel ${ch.name}`, ok: p.ok, required: false, detail: p.detail, fix });
  }
  return checks;
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
    .map((c) =>
      failed(
        `running channel ${c.name}`,
        `not started: ${c.error ?? c.state}`,
        `See rudder.log; the gateway keeps trying (check channels.${c.name} and that its platform can be reached).`,
        false,
      ),
    );
}

/** The nearest directory on the way up that exists. */
function existingAncestor(dir: string): string {
  let d = dir;
  while (!fs.existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  return d;
}

async function storeChecks(): Promise<Check[]> {
  const dir = dataDir();
  if (!fs.existsSync(dir)) return noDataDirYet(dir);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    inspectDataDir(dir);
  } catch (err) {
    const fix = 'Set RUDDER_HOME to a private directory of your own (0700, owned by you).';
    return [failed('data dir', (err as Error).message, fix)];
  }
  return [passed('data dir', `${dir} is yours, private and writable`), await storeCheck(path.join(dir, 'rudder.db'))];
}

/** No data dir: fine while the first directory that exists on the way up is writable (start makes it). */
function noDataDirYet(dir: string): Check[] {
  const parent = existingAncestor(dir);
  try {
    fs.accessSync(parent, fs.constants.W_OK);
  } catch {
    const detail = `${dir} does not exist and ${parent} is not writable`;
    return [failed('data dir', detail, 'Set RUDDER_HOME to a writable directory.')];
  }
  return [
    passed('data dir', `${dir} does not exist yet; rudder start creates it (${parent} is writable)`),
    passed('store', `no store yet; rudder start creates ${path.join(dir, 'rudder.db')}`),
  ];
}

/** The store's integrity, read only: not migrated, not put in WAL mode. */
async function storeCheck(file: string): Promise<Check> {
  if (!fs.existsSync(file)) return passed('store', `no store yet; rudder start creates ${file}`);
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
      return { name: 'store', ok: integrity === 'ok', required: true, detail: `SQLite integrity: ${integrity}`, fix };
    } finally {
      db.close();
    }
  } catch (err) {
    return failed('store', `${file}: ${(err as Error).message}`, fix);
  }
}

export async function run(opts: DoctorOptions = {}): Promise<number> {
  const checks = await doctor(opts);
  for (const c of checks) {
    process.stdout.write(`${c.ok ? '✔' : c.required ? '✘' : '!'} ${c.name}: ${c.detail}\n`);
    if (!c.ok && c.fix) process.stdout.write(`    fix: ${c.fix}\n`);
  }
  const failing = checks.filter((c) => !c.ok && c.required);
  process.stdout.write(
    failing.length ? `\n${failing.length} required check(s) failed.\n` : '\nAll required checks passed.\n',
  );
  return failing.length ? 1 : 0;
}
