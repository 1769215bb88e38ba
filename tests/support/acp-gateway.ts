/**
 * A real gateway on an ACP backend: a real agent (acp-rig.ts: the pinned package against the mock of its model
 * API) run through acp-tap.mjs, which writes the agent-side log (every request Rudder sent it, every answer it
 * gave). Read the log with tapLog; promptsAtOnce says how many session/prompt requests of one session were ever
 * open together (1: never a second prompt mid-turn).
 */
import fs from 'node:fs';
import path from 'node:path';
import { resolveAcpCommand } from '../../src/agents/acp/command.js';
import { PRESETS, type PresetName } from '../../src/agents/acp/presets.js';
import { type AcpRig, cleanPath } from './acp-rig.js';
import { tempDir } from './claude-rig.js';
import { ROOT } from './gateway-rig.js';

export const TAP = path.join(ROOT, 'tests/support/acp-tap.mjs');
export const FAKE_ACP_AGENT = path.join(ROOT, 'tests/support/fake-acp-agent.mjs');

export interface TapEntry {
  t: number;
  dir: 'in' | 'out';
  method?: string;
  id?: number | string;
  sessionId?: string;
  answer?: number | string;
  stopReason?: string;
  outcome?: string;
  error?: number;
}

/** The agent settings of a gateway on `acp:<agent>`, run through the tap; the log file beside. */
export function acpAgentConfig(rig: AcpRig, permissionMode: string, extra: Record<string, unknown> = {}) {
  const preset = PRESETS[rig.agent as PresetName];
  const real = resolveAcpCommand({}, preset, { PATH: '' });
  const target = [real.bin, ...real.args.slice(0, real.args.length - preset.args.length)];
  const log = path.join(tempDir('acp-tap'), 'tap.jsonl');
  return {
    log,
    agent: {
      backend: `acp:${rig.agent}`,
      permissionMode,
      interruptGraceSeconds: 10,
      cwd: rig.cwd,
      acp: {
        command: TAP,
        args: preset.args,
        env: {
          ...rig.agentEnv,
          PATH: cleanPath(),
          ACP_TAP_TARGET: JSON.stringify(target),
          ACP_TAP_LOG: log,
        },
      },
      ...extra,
    },
  };
}

/** The agent settings of a gateway on backend "acp" running the small agent of our own, through the tap. */
export function fakeAcpConfig(extra: Record<string, unknown> = {}) {
  const log = path.join(tempDir('acp-tap'), 'tap.jsonl');
  return {
    log,
    agent: {
      backend: 'acp',
      permissionMode: 'relay',
      cwd: tempDir('acp-fake-cwd'),
      acp: {
        command: TAP,
        name: 'Fake agent',
        env: { ACP_TAP_TARGET: JSON.stringify([process.execPath, FAKE_ACP_AGENT]), ACP_TAP_LOG: log },
      },
      ...extra,
    },
  };
}

export function tapLog(file: string): TapEntry[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as TapEntry);
}

/** The most session/prompt requests of one session open at once, over the whole log. */
export function promptsAtOnce(log: TapEntry[]): number {
  const open = new Map<string | number, string>();
  let most = 0;
  for (const e of log) {
    if (e.dir === 'in' && e.method === 'session/prompt' && e.id !== undefined) {
      open.set(e.id, e.sessionId ?? '');
      const sameSession = [...open.values()].filter((s) => s === (e.sessionId ?? '')).length;
      most = Math.max(most, sameSession);
    } else if (e.dir === 'out' && !e.method && e.id !== undefined) open.delete(e.id);
  }
  return most;
}

/** The requests Rudder sent with that method, in order. */
export function sent(log: TapEntry[], method: string): TapEntry[] {
  return log.filter((e) => e.dir === 'in' && e.method === method);
}

/** The agent's answer to a request. */
export function answerTo(log: TapEntry[], req: TapEntry): TapEntry | undefined {
  return log.find((e) => e.dir === 'out' && e.id === req.id && e.t >= req.t && !e.method);
}
