/**
 * Where claude would find its credentials: the auth variables and cloud switches of the agent's
 * environment, and a CLI login in its HOME. Read by `rudder doctor` and by the start's warning; an
 * empty list means the first message will fail with the CLI's "Not logged in" (unless an apiKeyHelper
 * the CLI's settings name supplies a key, which only a real request shows).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { switchOn } from './env-vars.js';

export function authSources(env: Record<string, string | undefined>): string[] {
  const home = env.HOME ?? os.homedir();
  return [
    ...['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'].filter((k) => env[k]),
    ...['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY'].filter((k) => switchOn(env[k])),
    fs.existsSync(path.join(home, '.claude', '.credentials.json')) ? 'a CLI login (~/.claude/.credentials.json)' : '',
    /"oauthAccount"/.test(readOr(path.join(home, '.claude.json'))) ? 'a CLI login (~/.claude.json)' : '',
  ].filter(Boolean);
}

export function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
