/**
 * `rudder doctor` for the claude-tmux backend, beyond Claude's own checks: tmux is installed, and
 * the TUI's first-run screens were done once in the agent's HOME (the backend cannot answer them).
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readOr } from '../claude/auth-sources.js';
import { buildAgentEnv } from '../claude/env.js';
import { type Check, type DoctorInput, failed, passed } from '../common/doctor.js';

const exec = promisify(execFile);

export async function tmuxChecks(input: DoctorInput): Promise<Check[]> {
  const { agent } = input;
  // Read first: Claude's model request writes its own state into the agent's HOME.
  const home = buildAgentEnv({ inherited: input.env, passVars: agent?.passEnv, extra: agent?.env }).HOME;
  const firstRun = tuiFirstRun(home ?? os.homedir());
  return [await tmuxInstalled(), firstRun];
}

async function tmuxInstalled(): Promise<Check> {
  try {
    const { stdout } = await exec('tmux', ['-V']);
    return passed('tmux', stdout.trim());
  } catch {
    return failed('tmux', 'tmux is not installed', 'apt-get install -y tmux (or use agent.backend "claude-stream").');
  }
}

/** The TUI exits at start (offline: status 1) until its first-run screens were done once in this HOME. */
function tuiFirstRun(home: string): Check {
  const name = 'claude first run';
  const file = path.join(home, '.claude.json');
  const fix =
    `Run \`claude\` once in a terminal as the user Rudder runs as (HOME=${home}) and finish its ` +
    `first-run screens; the claude-tmux backend cannot answer them.`;
  const text = readOr(file);
  if (!text) return failed(name, `${file} is missing: the TUI has never run in this HOME`, fix);
  let onboarded = false;
  try {
    onboarded = (JSON.parse(text) as { hasCompletedOnboarding?: unknown }).hasCompletedOnboarding === true;
  } catch {
    return failed(name, `${file} is not valid JSON`, `Move ${file} aside, then: ${fix}`);
  }
  return onboarded
    ? passed(name, `${file} has hasCompletedOnboarding`)
    : failed(name, `${file} lacks hasCompletedOnboarding: true (the first-run screens were not finished)`, fix);
}
