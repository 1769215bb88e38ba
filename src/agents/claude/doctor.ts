/**
 * `rudder doctor` for Claude: the binary and its version, a real probe of the persistent
 * stream-json mode, an auth source, one real model request with the agent's environment
 * (doctor-model.ts), and bypass mode as root. A check that cannot run is said, and counts as
 * failed: never a silent pass.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { checkBinary } from '../common/check-binary.js';
import { binaryLines, type Check, type DoctorInput, failed, passed } from '../common/doctor.js';
import { LOGIN_FIX } from './api-failure.js';
import { authSources } from './auth-sources.js';
import { CLAUDE_BINARY } from './binary.js';
import { probeModel } from './doctor-model.js';
import { buildAgentEnv } from './env.js';

const exec = promisify(execFile);

/** Whether the model can be reached is unknown: a failed check, never a silent pass. */
const notChecked = (why: string): Check => failed('model request', `not checked: ${why}`);

export async function claudeChecks(input: DoctorInput): Promise<Check[]> {
  const { agent } = input;
  const env = buildAgentEnv({ inherited: input.env, passVars: agent?.passEnv, extra: agent?.env });
  const c = await checkBinary(CLAUDE_BINARY, { configured: agent?.claudeBin, env: input.env, agentEnv: env }, 20_000);
  const { checks, runs } = binaryLines(CLAUDE_BINARY, c);
  if (!runs) {
    const why = c.source ? 'the claude binary does not run' : 'there is no claude binary to send it';
    return [...checks, notChecked(why)];
  }
  const stream = await streamJsonProbe(c.path!, env);
  checks.push(stream.check);
  // Read before the model request, which runs claude in the agent's HOME where it ran before.
  const sources = authSources(env);
  const model =
    stream.startupMs === undefined
      ? notChecked('claude does not accept the stream-json mode')
      : await probeModel({
          bin: c.path!,
          env,
          model: agent?.model,
          startupMs: stream.startupMs,
          answerTimeoutMs: input.answerTimeoutMs,
          say: input.say,
        });
  checks.push(authCheck(sources, model), model);
  if (agent?.permissionMode === 'bypassPermissions' && process.getuid?.() === 0 && env.IS_SANDBOX !== '1')
    checks.push(
      failed(
        'bypass as root',
        'the CLI refuses bypass mode as root',
        'Set agent.env.IS_SANDBOX to "1" (only in a sandbox), or use another permission mode.',
      ),
    );
  return checks;
}

/** The CLI must accept the persistent stream-json mode and exit cleanly on empty input; how long it took to start. */
async function streamJsonProbe(
  bin: string,
  env: Record<string, string>,
): Promise<{ check: Check; startupMs?: number }> {
  const name = 'claude stream-json';
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-doctor-'));
  const started = Date.now();
  try {
    const probe = exec(bin, ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], {
      env: { ...env, HOME: home },
      timeout: 30_000,
    });
    probe.child.stdin?.end(); // no input: a CLI that accepts the mode exits 0 at once
    await probe;
    return { check: passed(name, 'accepts --input-format stream-json'), startupMs: Date.now() - started };
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim().split('\n')[0] || (err as Error).message.split('\n')[0]!;
    return { check: failed(name, detail, 'Use Claude Code 2.1.x or newer (the pinned version is 2.1.332).') };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** The request is the proof: an answer means some auth source works, found here or not (apiKeyHelper…). */
function authCheck(sources: string[], model: Check): Check {
  const detail = sources.length
    ? sources.join(', ')
    : model.ok
      ? 'none found here, but the model request was answered'
      : 'no API key, OAuth token or CLI login found';
  return {
    name: 'auth',
    ok: sources.length > 0 || model.ok,
    required: true,
    detail,
    fix: LOGIN_FIX,
  };
}
