/**
 * `rudder doctor`'s one real request: `claude -p` with a tiny prompt, in the agent's environment
 * (its endpoint, key or login, proxy), no tools, no saved session, no retries (a failing endpoint
 * is named at once instead of after ten backoffs). Each wait is bounded and said while it runs:
 * the start-up by what the CLI took to start just before (the stream-json probe), the answer by
 * --timeout. The outcome names the cause: DNS, refused connection, 401, 403, proxy, timeout…
 * It runs in the agent's HOME only where claude has run before (its login and settings are
 * there, and a run only updates claude's own state); elsewhere in a temporary HOME, so nothing
 * is created in a HOME claude never ran in.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../ops/logger.js';
import type { Check } from '../common/doctor.js';
import { credentialNames, explainApiFailure } from './api-failure.js';
import { apiEndpoint } from './endpoint.js';
import { AgentProcess } from './process.js';
import type { OutputFrame } from './protocol/output.js';
import { parseLine } from './protocol/parse.js';

export const PROBE_PROMPT = 'Reply with the single word OK.';

export interface ModelProbeOptions {
  bin: string;
  /** The agent's environment (agents/claude/env.ts). */
  env: Record<string, string>;
  model?: string;
  /** How long the CLI took to start and exit just before, on this machine now. */
  startupMs: number;
  /** How long the request may wait for an answer once the CLI runs. */
  answerTimeoutMs: number;
  /** Progress, while it waits (stderr). */
  say: (line: string) => void;
}

/** The start-up budget: four times what it just took, at least 15 s (a loaded machine starts slower). */
export function startupBudgetMs(measuredMs: number): number {
  return Math.max(15_000, Math.ceil((4 * measuredMs) / 1000) * 1000);
}

const NAME = 'model request';

type Outcome =
  | { kind: 'result'; frame: Extract<OutputFrame, { type: 'result' }>; error?: string; ms: number }
  | { kind: 'timeout'; phase: 'start' | 'answer'; ms: number }
  | { kind: 'exit'; code: number | null; stderr: string; ms: number };

export async function probeModel(o: ModelProbeOptions): Promise<Check> {
  const ep = apiEndpoint(o.env);
  const via = ep.proxy ? ` through ${ep.proxy.host} (${ep.proxyVar})` : '';
  const target = `${ep.url.origin}${ep.setBy ? ` (${ep.setBy})` : ''}${via}`;
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-doctor-request-'));
  const startBudget = startupBudgetMs(o.startupMs);
  let proc: AgentProcess;
  try {
    proc = spawnProbe(o, cwd);
  } catch (err) {
    fs.rmSync(cwd, { recursive: true, force: true });
    return { name: NAME, ok: false, required: true, detail: `not checked: ${(err as Error).message}` };
  }
  // A doctor stopped with Ctrl-C stops its probe first (it runs in a process group of its own).
  const onSignal = () => void proc.kill('rudder doctor was interrupted').then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    o.say(
      `waiting up to ${startBudget / 1000} s for claude to start (it took ${(o.startupMs / 1000).toFixed(1)} s ` +
        'just now)…',
    );
    return judge(await outcomeOf(proc, o, target, startBudget), o, target, startBudget);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await proc.kill('doctor: the model request is over', 1000);
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}

/**
 * `claude -p` in a temporary directory, with no retries and no traffic but the request. In the agent's HOME only
 * where claude has run before; elsewhere in the temporary directory, so nothing is created in a HOME it never ran in.
 */
function spawnProbe(o: ModelProbeOptions, cwd: string): AgentProcess {
  const home = o.env.HOME ?? os.homedir();
  const used = fs.existsSync(path.join(home, '.claude')) || fs.existsSync(path.join(home, '.claude.json'));
  const env = {
    ...o.env,
    HOME: used ? home : cwd,
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
  };
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--no-session-persistence'];
  args.push('--tools', '', '--max-turns', '1', ...(o.model ? ['--model', o.model] : []));
  return AgentProcess.spawn({ bin: o.bin, args, cwd, env, logger: silentLogger(), label: 'doctor' });
}

/** Writes the prompt and waits: for the CLI to start (its init), then for the result, each wait bounded. */
function outcomeOf(proc: AgentProcess, o: ModelProbeOptions, target: string, startBudget: number): Promise<Outcome> {
  const started = Date.now();
  return new Promise<Outcome>((resolve) => {
    let error: string | undefined;
    let timer = setTimeout(() => resolve({ kind: 'timeout', phase: 'start', ms: Date.now() - started }), startBudget);
    proc.onLine((line) => {
      const p = parseLine(line);
      if (p.kind !== 'frame') return;
      const f = p.frame;
      if (f.type === 'system' && f.subtype === 'init') {
        clearTimeout(timer);
        o.say(`waiting up to ${o.answerTimeoutMs / 1000} s for an answer from ${target}…`);
        timer = setTimeout(
          () => resolve({ kind: 'timeout', phase: 'answer', ms: Date.now() - started }),
          o.answerTimeoutMs,
        );
      } else if (f.type === 'assistant' && f.error) error = f.error;
      else if (f.type === 'result') {
        clearTimeout(timer);
        resolve({ kind: 'result', frame: f, error, ms: Date.now() - started });
      }
    });
    void proc.exited.then((x) => {
      clearTimeout(timer);
      resolve({ kind: 'exit', code: x.code, stderr: proc.stderrTail().join('\n').trim(), ms: Date.now() - started });
    });
    proc.write(PROBE_PROMPT);
    proc.closeStdin();
  });
}

function judge(outcome: Outcome, o: ModelProbeOptions, target: string, startBudget: number): Check {
  const ep = apiEndpoint(o.env);
  const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  if (outcome.kind === 'timeout' && outcome.phase === 'start')
    return {
      name: NAME,
      ok: false,
      required: true,
      detail: `not checked: claude did not start within ${startBudget / 1000} s`,
      fix: 'The machine may be very busy: run rudder doctor again; if it persists, run `claude -p hello` by hand.',
    };
  if (outcome.kind === 'timeout') {
    const f = explainApiFailure({ text: '(TIMEOUT)' }, ep);
    return {
      name: NAME,
      ok: false,
      required: true,
      detail: `timeout: no answer from ${target} within ${o.answerTimeoutMs / 1000} s`,
      fix: `${f.fix} (rudder doctor --timeout <seconds> waits longer.)`,
    };
  }
  if (outcome.kind === 'exit') {
    const why = outcome.stderr.split('\n')[0] || `claude exited with code ${outcome.code} before answering`;
    return {
      name: NAME,
      ok: false,
      required: true,
      detail: `not checked: ${why}`,
      fix: 'Run `claude -p hello` by hand.',
    };
  }
  const r = outcome.frame;
  if (!r.is_error) return { name: NAME, ok: true, required: true, detail: `${target} answered in ${secs(outcome.ms)}` };
  const f = explainApiFailure(
    { text: r.result, status: r.api_error_status, error: outcome.error },
    ep,
    credentialNames(o.env),
  );
  // A rate limit still shows that the endpoint and the credentials work.
  if (f.cause === 'rate-limited') return { name: NAME, ok: true, required: true, detail: `${target}: ${f.summary}` };
  // Doctor is where "run rudder doctor" leads: a cause it cannot name sends the person to the CLI's own words.
  const fix =
    f.cause === 'other' && f.status === undefined
      ? "Run `claude -p hello` in a terminal with the agent's environment (agent.env) to read the CLI's own error."
      : f.fix;
  return { name: NAME, ok: false, required: true, detail: `${f.cause}: ${f.summary}`, fix };
}
